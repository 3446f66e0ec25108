// Surfaces as first-class callers (DESIGN.md "Surfaces at scale"): an operator makes a surface
// token for each bot; the token belongs to no account. With it a surface redeems link codes
// (the key made is linked through the surface and its secret never leaves core), acts for a
// linked key by naming it (the request then runs as that key: its scopes, its rate limit, its
// account's policy), and reads one stream of every linked account's events (surface-feed.ts).
// Revoking a linked key revokes its link and puts a `link_revoked` notice in the feed.
import type { Scope, SurfaceRedeemResult, SurfaceView } from '@presence/protocol';
import { type Clock, iso } from '../clock/clock';
import type { KeyChangeHandlers } from '../cluster/cluster-port';
import { PresenceError } from '../errors/presence-error';
import type { EventsLog } from '../events/events-log';
import type { KeyService, Principal } from '../keys/key-service';
import type { LinkService, RedeemWho } from '../links/link-service';
import { createAccountViewCache } from '../presence/account-view-cache';
import type { RateLimiterPort } from '../ratelimit/sliding-window';
import type { StorePort } from '../store/store-port';
import type { SurfaceRecord } from '../store/surface-records';
import type { SurfaceStorePort } from '../store/surface-store-port';
import { type SurfaceSubscription, subscribeSurfaceFeed } from './surface-feed';
import { createSurfaceRedeemGuard, type SurfaceRedeemLimits } from './surface-redeem-guard';
import { hashSurfaceToken, looksLikeSurfaceToken, newSurfaceId, newSurfaceToken } from './surface-token';

export type SurfacePrincipal = { surfaceId: string; name: string };
export type SurfaceService = ReturnType<typeof createSurfaceService>;

const SURFACE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Upkeep drops feed entries older than this (the events they point to are kept 7 days). */
const FEED_RETENTION_MS = 7 * 24 * 3600_000;

const view = (s: SurfaceRecord): SurfaceView => ({
  id: s.id,
  name: s.name,
  last4: s.last4,
  created_at: s.created_at,
  revoked_at: s.revoked_at,
});

/** The name redeeming a link code gives a key: `<surface>:<name>` (links/link-service.ts). */
const REDEEMED_KEY_NAME = /^[a-z][a-z0-9-]{0,31}:./;

/** What createSurfaceService is built from. */
type SurfaceServiceDeps = {
  store: Pick<StorePort, 'getKey'>;
  surfaces: SurfaceStorePort;
  clock: Clock;
  keys: Pick<KeyService, 'authenticate'>;
  events: Pick<EventsLog, 'bounds'>;
  links: LinkService;
  rateLimiterFor: (scope: string, opts: { limit: number; windowMs: number }) => RateLimiterPort;
  redeemLimits?: SurfaceRedeemLimits;
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

export function createSurfaceService({
  store,
  surfaces,
  clock,
  keys,
  events,
  links,
  rateLimiterFor,
  redeemLimits,
  linkChanges,
  surfaceChanges,
  onError = () => undefined,
}: SurfaceServiceDeps) {
  const guard = createSurfaceRedeemGuard({ rateLimiterFor, limits: redeemLimits });
  const fed = new Set<() => void>();
  const linkedAccounts = linkChanges ? createAccountViewCache<boolean>({ changes: linkChanges, now: () => clock.now() }) : null;
  /** This server linked the account: it is sequenced from its next append on. */
  const linkedHere = (accountId: string) => linkedAccounts?.drop(accountId);
  const revokedListeners = new Set<(surfaceId: string) => void>();
  const revoked = (surfaceId: string) => {
    for (const l of revokedListeners) l(surfaceId);
  };
  // A revocation is an operator's rare act: one read of the (few) surface records per server.
  surfaceChanges?.subscribe({
    changed: (surfaceId) => {
      void surfaces
        .listSurfaces()
        .then((all) => {
          if (all.some((x) => x.id === surfaceId && x.revoked_at !== null)) revoked(surfaceId);
        })
        .catch(onError);
    },
    // Notices may have been missed: every revoked token's streams close (those left open are live).
    resync: () => {
      void surfaces
        .listSurfaces()
        .then((all) => {
          for (const x of all) if (x.revoked_at !== null) revoked(x.id);
        })
        .catch(onError);
    },
  });
  /** New feed entries may be there: every open stream on this server reads on. */
  const poke = () => {
    for (const f of fed) f();
  };

  async function named(idOrName: string): Promise<SurfaceRecord> {
    const all = await surfaces.listSurfaces();
    const s = all.find((x) => x.id === idOrName) ?? all.find((x) => x.name === idOrName && x.revoked_at === null);
    if (!s) throw new PresenceError('not_found', `no surface ${idOrName}`);
    return s;
  }

  return {
    async create(name: string): Promise<{ surface: SurfaceView; token: string }> {
      if (!SURFACE_NAME.test(name))
        throw new PresenceError('invalid_request', 'a surface name is lowercase letters, digits, "-" or "_" (at most 64)');
      if ((await surfaces.listSurfaces()).some((s) => s.name === name && s.revoked_at === null))
        throw new PresenceError('conflict', `a live surface named ${name} exists; revoke it first or pick another name`);
      const token = newSurfaceToken();
      const record: SurfaceRecord = {
        id: newSurfaceId(),
        name,
        hash: hashSurfaceToken(token),
        last4: token.slice(-4),
        created_at: iso(clock.now()),
        revoked_at: null,
      };
      await surfaces.insertSurface(record);
      return { surface: view(record), token };
    },

    async list(): Promise<(SurfaceView & { links: number })[]> {
      return Promise.all((await surfaces.listSurfaces()).map(async (s) => ({ ...view(s), links: await surfaces.countSurfaceLinks(s.id) })));
    },

    /** By id, or by the name of a live surface. Its token stops working at once; its links stay (a new token cannot take them over). */
    async revoke(idOrName: string): Promise<SurfaceView> {
      const s = await surfaces.revokeSurface((await named(idOrName)).id, iso(clock.now()));
      if (!s) throw new PresenceError('not_found', `no surface ${idOrName}`);
      revoked(s.id);
      return view(s);
    },

    /** Resolves a bearer surface token, or throws 401 `auth`. */
    async authenticate(token: string): Promise<SurfacePrincipal> {
      if (!looksLikeSurfaceToken(token)) throw new PresenceError('auth', 'malformed surface token: expected prs_surface_…');
      const s = await surfaces.findSurfaceByHash(hashSurfaceToken(token));
      if (!s) throw new PresenceError('auth', 'unknown surface token');
      if (s.revoked_at !== null) throw new PresenceError('auth', 'this surface token was revoked');
      return { surfaceId: s.id, name: s.name };
    },

    /** Whether the surface's token still works (streams look again now and then: a revocation on another server). */
    async isLive(surfaceId: string): Promise<boolean> {
      const s = (await surfaces.listSurfaces()).find((x) => x.id === surfaceId);
      return s !== undefined && s.revoked_at === null;
    },

    /** Redeems a link code for the surface: the key is linked through it; no secret is answered. */
    async redeem(
      by: SurfacePrincipal,
      code: string,
      who: RedeemWho,
    ): Promise<{ result: SurfaceRedeemResult; rate: { limit: number; remaining: number; resetS: number } }> {
      const attempt = await guard.attempt(by.surfaceId, who.user_id);
      const made = await links.redeem(code, who, attempt, async ({ accountId, keyId, lastEventId }) => {
        await surfaces.insertSurfaceLink({
          key_id: keyId,
          surface_id: by.surfaceId,
          account_id: accountId,
          surface_user: who.user_id,
          created_at: clock.now(),
          from_event: lastEventId,
          from_seq: 0,
          revoked_at: null,
        });
        linkedHere(accountId);
      });
      const { key: _secretless, ...rest } = made;
      return { result: { ...rest, surface: by.surfaceId }, rate: attempt.rate };
    },

    /**
     * Moves a key a surface holds the secret of (linked before surface tokens) over to the
     * surface: linked through it from now on, so the surface can drop the secret and act for
     * it by id. Again for a key already linked here answers the same; a key linked through
     * another surface is 409.
     */
    async adopt(by: SurfacePrincipal, secret: string, surfaceUser: string): Promise<SurfaceRedeemResult> {
      const p = await keys.authenticate(secret);
      if (p.kind !== 'live') throw new PresenceError('invalid_request', 'only a live key can be linked through a surface');
      const k = await store.getKey(p.keyId);
      if (!k) throw new PresenceError('auth', 'unknown key');
      // Only what a surface could have held before surface tokens: a key a link code made for a
      // surface user. An admin key (or any other) adopted would let the surface act as it by id.
      if (!REDEEMED_KEY_NAME.test(k.name) || k.scopes.includes('admin'))
        throw new PresenceError(
          'invalid_request',
          'only a key made by redeeming a link code (named "<surface>:<name>", without the admin scope) can be adopted',
        );
      let link = await surfaces.getSurfaceLink(p.keyId);
      if (link && link.surface_id !== by.surfaceId) throw new PresenceError('conflict', `key ${p.keyId} is linked through another surface`);
      const { latest } = await events.bounds(p);
      link ??= await surfaces.insertSurfaceLink({
        key_id: p.keyId,
        surface_id: by.surfaceId,
        account_id: p.accountId,
        surface_user: surfaceUser,
        created_at: clock.now(),
        from_event: latest,
        from_seq: 0,
        revoked_at: null,
      });
      linkedHere(p.accountId);
      return {
        account: p.accountId,
        key_id: p.keyId,
        name: k.name,
        scopes: [...k.scopes],
        surface_user: link.surface_user,
        last_event_id: latest,
        surface: by.surfaceId,
      };
    },

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

    onSurfaceRevoked(listener: (surfaceId: string) => void): () => void {
      revokedListeners.add(listener);
      return () => revokedListeners.delete(listener);
    },

    surfaces,
  };
}
