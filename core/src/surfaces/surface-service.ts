// Surfaces as first-class callers (DESIGN.md "Surfaces at scale"): an operator makes a surface
// token for each bot; the token belongs to no account. With it a surface redeems link codes
// (the key made is linked through the surface and its secret never leaves core), acts for a
// linked key by naming it (the request then runs as that key: its scopes, its rate limit, its
// account's policy), and reads one stream of every linked account's events (surface-feed.ts).
// Revoking a linked key revokes its link and puts a `link_revoked` notice in the feed.
import type { Scope } from '@presence/protocol';
import type { KeyChangeHandlers } from '../cluster/cluster-port';
import { PresenceError } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import { createAccountViewCache } from '../presence/account-view-cache';
import { type SurfaceSubscription, subscribeSurfaceFeed } from './surface-feed';
import { type SurfaceLinkDeps, surfaceLinkMethods } from './surface-links';
import { createSurfaceRevocations } from './surface-revocations';
import { type SurfacePrincipal, surfaceTokenMethods } from './surface-tokens';

export type { SurfacePrincipal } from './surface-tokens';
export type SurfaceService = ReturnType<typeof createSurfaceService>;

/** Upkeep drops feed entries older than this (the events they point to are kept 7 days). */
const FEED_RETENTION_MS = 7 * 24 * 3600_000;

/** What createSurfaceService is built from. */
type SurfaceServiceDeps = SurfaceLinkDeps & {
  /**
   * On a store servers share: links made on any server, announced at commit. Whether an
   * account is linked is then remembered across its appends (an account no surface links —
   * most of them — costs its appends no read; DESIGN.md "Cost follows work").
   */
  linkChanges?: { subscribe(h: KeyChangeHandlers): () => void };
  /** On a store servers share: surface tokens revoked anywhere (the CLI included), so their streams here close at once. */
  surfaceChanges?: { subscribe(h: KeyChangeHandlers): () => void };
  onError?: (e: unknown) => void;
};

export function createSurfaceService(deps: SurfaceServiceDeps) {
  const { store, surfaces, clock, linkChanges, surfaceChanges, onError = () => undefined } = deps;
  const fed = new Set<() => void>();
  const linkedAccounts = linkChanges ? createAccountViewCache<boolean>({ changes: linkChanges, now: () => clock.now() }) : null;
  /** This server linked the account: it is sequenced from its next append on. */
  const linkedHere = (accountId: string) => linkedAccounts?.drop(accountId);
  const revocations = createSurfaceRevocations({ surfaces, surfaceChanges, onError });
  /** New feed entries may be there: every open stream on this server reads on. */
  const poke = () => {
    for (const f of fed) f();
  };

  return {
    ...surfaceTokenMethods({ surfaces, clock, revoked: revocations.revoked }),
    ...surfaceLinkMethods(deps, linkedHere),

    /**
     * The principal a surface acts as when it names `keyId`: that key, exactly as if it had
     * authenticated itself. A key not linked through this surface (unknown, of another surface,
     * or made otherwise) is 403; a revoked key or link is 401.
     */
    async actingFor(by: SurfacePrincipal, keyId: string): Promise<Principal> {
      const notYours = () =>
        new PresenceError('scope', `key ${keyId} is not linked through this surface; a surface acts only for keys it redeemed`);
      if (!/^key_[0-9A-Za-z]{16}$/.test(keyId)) throw new PresenceError('invalid_request', 'Presence-Acting-For must be a key id (key_…)');
      const link = await surfaces.getSurfaceLink(keyId);
      if (!link || link.surface_id !== by.surfaceId) throw notYours();
      const k = await store.getKey(keyId);
      if (!k) throw notYours();
      if (k.state === 'revoked' || link.revoked_at !== null) {
        // Tidying after the fact, not this answer's business; keyRevoked reports its own failures.
        if (k.state === 'revoked') void this.keyRevoked(keyId);
        throw new PresenceError('auth', `key ${keyId} was revoked: the user must link again`);
      }
      const current = k.secrets.find((s) => s.valid_until === null) ?? k.secrets.at(-1);
      return {
        keyId: k.id,
        accountId: k.account_id,
        kind: k.kind,
        scopes: k.scopes as Scope[],
        validUntil: null,
        secretHash: current?.hash ?? '',
      };
    },

    /** A key was revoked: if a surface linked it, the link ends and its stream is told. */
    async keyRevoked(keyId: string): Promise<void> {
      try {
        if (await surfaces.revokeSurfaceLink(keyId, clock.now())) poke();
      } catch (e) {
        onError(e);
      }
    },

    /** An account's live event was stored: give it its feed position (not awaited by emitters). */
    sequence(accountId: string): void {
      // A link made meanwhile on another server is told at its commit; an append that still
      // missed it is sequenced by the next one, or by upkeep (sequenceAllFeeds).
      const linked = linkedAccounts ? linkedAccounts.get(accountId, () => surfaces.isLinked(accountId)) : surfaces.isLinked(accountId);
      linked
        .then((yes) => (yes ? surfaces.sequenceFeed(accountId) : 0))
        .then((n) => {
          if (n > 0) poke();
        }, onError);
    },

    /** Upkeep: positions an append's crash left untaken, and entries past retention. */
    async maintain(): Promise<void> {
      if ((await surfaces.sequenceAllFeeds()) > 0) poke();
      await surfaces.pruneFeed(clock.now() - FEED_RETENTION_MS);
    },

    /**
     * The surface's one stream (surface-feed.ts): every linked account's events as its linked
     * keys may see them, after the cursor (undefined: live only), in one partition of the
     * accounts when `partition` and `of` are given (together, with 0 ≤ partition < of).
     */
    subscribe(
      surfaceId: string,
      after: number | undefined,
      { partition, of }: { partition?: number; of?: number } = {},
    ): SurfaceSubscription {
      if ((partition === undefined) !== (of === undefined) || (partition !== undefined && of !== undefined && partition >= of))
        throw new PresenceError('invalid_request', 'partition and of go together, with 0 ≤ partition < of');
      return subscribeSurfaceFeed({
        surfaces,
        store,
        surfaceId,
        after,
        partition: partition !== undefined && of !== undefined ? { index: partition, of } : undefined,
        onFeed: this.onFeed,
        onStaleLink: (keyId) => void this.keyRevoked(keyId),
      });
    },

    /** Called when new entries may be in the feed (this server sequenced, or another server's notice). */
    onFeed(listener: () => void): () => void {
      fed.add(listener);
      return () => fed.delete(listener);
    },
    poke,

    onSurfaceRevoked: revocations.onSurfaceRevoked,

    surfaces,
  };
}
