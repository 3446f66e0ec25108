// What the store keeps about surfaces (bots, extensions run by an operator): the surface
// tokens, the links made through them (one per key a surface redeemed), and the surface feed,
// the one global order in which every linked account's events are read by surface streams.
import { z } from 'zod';
import type { StoredEvent } from './documents';

export const SurfaceRecord = z.object({
  id: z.string(),
  name: z.string(),
  /** SHA-256 of the token: like keys, the token itself is shown once and never kept. */
  hash: z.string(),
  last4: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type SurfaceRecord = z.infer<typeof SurfaceRecord>;

export const SurfaceLinkRecord = z.object({
  key_id: z.string(),
  surface_id: z.string(),
  account_id: z.string(),
  surface_user: z.string(),
  created_at: z.number(),
  /** The account's newest event id when linked: events up to it are history the link never carries. */
  from_event: z.number().int(),
  /** The feed's head when linked: the surface's stream carries the account's feed entries after it. */
  from_seq: z.number().int(),
  revoked_at: z.number().nullable(),
});
export type SurfaceLinkRecord = z.infer<typeof SurfaceLinkRecord>;

/** One place in the surface feed: an account's event, or a surface's link revoked. */
export const FeedRecord = z.object({
  seq: z.number().int(),
  account_id: z.string(),
  kind: z.enum(['event', 'link_revoked']),
  event_id: z.number().int().nullable(),
  /** link_revoked only: the key and the surface it was linked through. */
  key_id: z.string().nullable(),
  surface_id: z.string().nullable(),
  at: z.number(),
});
export type FeedRecord = z.infer<typeof FeedRecord>;

/** A feed entry as a surface stream reads it: the event itself joined in (null when pruned). */
export type FeedEntry = FeedRecord & { event: StoredEvent | null };
