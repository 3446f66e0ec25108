// Stored document schemas: the shape of everything the store keeps. Adapters validate what
// they read back so a hand-edited or half-migrated file fails loudly, not subtly.
import { z } from 'zod';
import { KeyKind, Scope } from '../schemas/common';
import { StoredPolicy } from '../schemas/policy';

export const AccountRecord = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  presence: z.object({
    name: z.string(),
    model: z.string(),
    preferences: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  }),
  policy: StoredPolicy.nullable(),
});
export type AccountRecord = z.infer<typeof AccountRecord>;

export const KeySecretRecord = z.object({
  hash: z.string(),
  last4: z.string(),
  /** null while current; set when rotated away (end of the grace window). */
  valid_until: z.number().nullable(),
});

export const KeyRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  kind: KeyKind,
  name: z.string(),
  scopes: z.array(Scope),
  secrets: z.array(KeySecretRecord),
  state: z.enum(['active', 'revoked']),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type KeyRecord = z.infer<typeof KeyRecord>;

export const MemoryEntry = z.object({
  key: z.string(),
  tier: z.enum(['pinned', 'fading']),
  /** Who pinned it: a user pin is never dropped or demoted by the compactor. */
  pinned_by: z.enum(['user', 'compactor']).nullable(),
  weight: z.number(),
  note: z.string(),
  touches: z.number().int(),
  last_seen: z.number(),
});
export type MemoryEntry = z.infer<typeof MemoryEntry>;

export const StoredEvent = z.object({
  id: z.number().int(),
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
  at: z.number(),
});
export type StoredEvent = z.infer<typeof StoredEvent>;

export const IdempotencyRecord = z.object({
  key: z.string(),
  fingerprint: z.string(),
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  created_at: z.number(),
});
export type IdempotencyRecord = z.infer<typeof IdempotencyRecord>;
