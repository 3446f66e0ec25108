// A surface linking keys through itself: redeeming a link code for one of its users (the key
// made never leaves core; the surface acts for it by id), and adopting a key it held the secret
// of from before surface tokens. Redemption is budgeted per surface user (surface-redeem-guard.ts).
import type { SurfaceRedeemResult } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { EventsLog } from '../events/events-log';
import type { KeyService } from '../keys/key-service';
import type { LinkService, RedeemWho } from '../links/link-service';
import type { RateLimiterPort } from '../ratelimit/sliding-window';
import type { StorePort } from '../store/store-port';
import type { SurfaceStorePort } from '../store/surface-store-port';
import { createSurfaceRedeemGuard, type SurfaceRedeemLimits } from './surface-redeem-guard';
import type { SurfacePrincipal } from './surface-tokens';

/** The name redeeming a link code gives a key: `<surface>:<name>` (links/link-service.ts). */
const REDEEMED_KEY_NAME = /^[a-z][a-z0-9-]{0,31}:./;

/** What a surface's linking is built from (part of what createSurfaceService is built from). */
export type SurfaceLinkDeps = {
  store: Pick<StorePort, 'getKey'>;
  surfaces: SurfaceStorePort;
  clock: Clock;
  keys: Pick<KeyService, 'authenticate'>;
  events: Pick<EventsLog, 'bounds'>;
  links: LinkService;
  rateLimiterFor: (scope: string, opts: { limit: number; windowMs: number }) => RateLimiterPort;
  redeemLimits?: SurfaceRedeemLimits;
};

/** The linking methods of the surface service; `linkedHere` says this server linked the account. */
export function surfaceLinkMethods(deps: SurfaceLinkDeps, linkedHere: (accountId: string) => void) {
  const { store, surfaces, clock, keys, events, links } = deps;
  const guard = createSurfaceRedeemGuard({ rateLimiterFor: deps.rateLimiterFor, limits: deps.redeemLimits });
  return {
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
  };
}
