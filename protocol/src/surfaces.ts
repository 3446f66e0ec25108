// Surfaces at scale: a surface token (one per bot or other surface an operator runs) redeems
// link codes without receiving a secret, acts for a linked key by naming it in
// `Presence-Acting-For`, and reads one multiplexed events stream for all its linked users.
import { z } from 'zod';
import { queryInteger, Scope, Timestamp } from './common';
import { EventsQuery, PresenceEvent } from './events';
import { RedeemResult } from './links';

/** The header a surface token names the linked key in (`key_…`), as Stripe-Account names a connected account. */
export const ACTING_FOR_HEADER = 'presence-acting-for';

export const SurfaceView = z.object({
  id: z.string().describe('srf_ + 16 base62 characters'),
  name: z.string(),
  last4: z.string(),
  created_at: Timestamp,
  revoked_at: Timestamp.nullable(),
});
export type SurfaceView = z.infer<typeof SurfaceView>;

/** GET /v1/surface: the token itself and how many live links it holds. */
export const SurfaceStatus = SurfaceView.extend({ links: z.number().int().min(0) }).meta({ id: 'Surface' });
export type SurfaceStatus = z.infer<typeof SurfaceStatus>;

export const SurfaceRedeemResult = RedeemResult.omit({ key: true })
  .extend({
    surface: z.string().describe('The id of the surface token the key is linked through'),
    scopes: z.array(Scope),
  })
  .meta({ id: 'SurfaceRedeemResult' });
export type SurfaceRedeemResult = z.infer<typeof SurfaceRedeemResult>;

/** POST /v1/links/{code}/redeem: the key's secret without a surface token; its id only with one. */
export const RedeemAnswer = z.union([RedeemResult, SurfaceRedeemResult]).meta({ id: 'RedeemAnswer' });

/** POST /v1/surface/adopt: a key linked before surface tokens, moved over to the surface. */
export const AdoptRequest = z
  .strictObject({
    key: z.string().min(1).max(200).describe("The key's secret (prs_live_…), which the surface may forget afterwards"),
    surface_user: z.string().min(1).max(128),
  })
  .meta({ id: 'AdoptRequest' });

export const SurfaceEventsQuery = EventsQuery.extend({
  partition: queryInteger(z.number().int().min(0).max(255)).optional(),
  of: queryInteger(z.number().int().min(1).max(256)).optional(),
});

/** `data` of an account's event on GET /v1/surface/events (the SSE event name is its type). */
export const SurfaceEventData = z
  .object({
    account: z.string(),
    /** The surface's linked keys of the account whose scopes show this event. */
    key_ids: z.array(z.string()).min(1),
    event: PresenceEvent,
    /**
     * Per listed key lacking a scope a `message`'s text drew on: the text that key reads instead
     * of `event.data.text` (`[redacted: …]`, as on its own GET /v1/events). When no listed key
     * may read the text whole, `event.data.text` is itself redacted.
     */
    redacted: z.record(z.string(), z.string()).optional(),
  })
  .meta({ id: 'SurfaceEvent' });
export type SurfaceEventData = z.infer<typeof SurfaceEventData>;

/** `data` of `link_revoked`: the key no longer acts for its user; its account's events stop. */
export const LinkRevokedData = z
  .object({ account: z.string(), key_id: z.string(), surface_user: z.string(), at: Timestamp })
  .meta({ id: 'LinkRevokedEvent' });
export type LinkRevokedData = z.infer<typeof LinkRevokedData>;

/** FNV-1a of the account id: which partition of `of` carries an account (`?partition=i&of=n`). */
export function accountPartition(accountId: string, of: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < accountId.length; i++) {
    h ^= accountId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % of;
}
