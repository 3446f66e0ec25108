// Stored document schemas: the shape of everything the store keeps. Adapters validate what
// they read back so a hand-edited or half-migrated file fails loudly, not subtly.
import { KeyKind, Scope, StoredPolicy } from '@presence/protocol';
import { z } from 'zod';

/** What the account index (accounts.json) keeps of each account: only what never changes. */
export const AccountIndexEntry = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
});
export type AccountIndexEntry = z.infer<typeof AccountIndexEntry>;

/** An account as kept in its own document (data/accounts/<id>.json). */
export const AccountRecord = AccountIndexEntry.extend({
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
  /**
   * When the compactor must next look at this entry (memory-rules.ts `compactionDue`): null
   * for a user's pin. Absent on entries written before it existed: due at once.
   */
  due_at: z.number().nullable().optional(),
});
export type MemoryEntry = z.infer<typeof MemoryEntry>;

/** When the compactor must look at an entry (null: never); entries from before `due_at` existed are due at once. */
export const memoryDueAt = (e: MemoryEntry): number | null =>
  e.due_at !== undefined ? e.due_at : e.tier === 'pinned' && e.pinned_by === 'user' ? null : 0;

export const StoredEvent = z.object({
  id: z.number().int(),
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
  at: z.number(),
});
export type StoredEvent = z.infer<typeof StoredEvent>;

/** AES-256-GCM ciphertext under the master key (keystore/keystore.ts); base64 parts. */
export const Sealed = z.object({ iv: z.string(), tag: z.string(), data: z.string() });
export type Sealed = z.infer<typeof Sealed>;

export const IdempotencyRecord = z.object({
  key: z.string(),
  fingerprint: z.string(),
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  created_at: z.number(),
});
export type IdempotencyRecord = z.infer<typeof IdempotencyRecord>;

/**
 * An idempotency record as kept on disk: the answer body is sealed, because answers carry
 * secrets (a new key's secret, a rotated secret, a link code) that must not sit in a file
 * for 24 h in the clear. Lines written before sealing (a plain `body`) are still read.
 */
export const StoredIdempotencyRecord = z.union([IdempotencyRecord.omit({ body: true }).extend({ sealed: Sealed }), IdempotencyRecord]);
export type StoredIdempotencyRecord = z.infer<typeof StoredIdempotencyRecord>;

export const WalletRecord = z.object({
  account_id: z.string(),
  address: z.string(),
  /** AES-256-GCM under the master key; base64 parts. The plaintext never leaves core. */
  key: Sealed,
  created_at: z.string(),
  funded: z.boolean(),
});
export type WalletRecord = z.infer<typeof WalletRecord>;

export const intentStates = ['held', 'executing', 'signed', 'done', 'failed', 'denied', 'expired'] as const;
export const IntentState = z.enum(intentStates);
export type IntentState = z.infer<typeof IntentState>;

/** One step of an intent's plan: an unsigned transaction and what it does. */
export const PlannedTx = z.object({
  to: z.string(),
  data: z.string(),
  value: z.string(),
  gas: z.string().optional(),
  gas_headroom: z.string().optional(),
  label: z.string(),
});
export type PlannedTx = z.infer<typeof PlannedTx>;

export const SentTx = z.object({ hash: z.string(), raw: z.string(), nonce: z.number().int(), label: z.string() });
export type SentTx = z.infer<typeof SentTx>;

export const IntentRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  source: z.enum(['api', 'message', 'standing', 'withdraw']),
  /** The Idempotency-Key it was submitted under, so a retry finds it instead of acting again. */
  idempotency_key: z.string().nullable(),
  text: z.string(),
  action: z.enum(['swap', 'send', 'wrap', 'unwrap', 'withdraw']),
  summary: z.string(),
  amount: z.string(),
  /** USD value at the quoted block, 1e18-scaled bigint as a decimal string. */
  value_usd: z.string(),
  tokens: z.array(z.string()),
  to: z.string().nullable(),
  quote_block: z.number().int(),
  steps: z.array(PlannedTx),
  state: IntentState,
  confirm_id: z.string().nullable(),
  expires_at: z.number().nullable(),
  txs: z.array(SentTx),
  block: z.number().int().nullable(),
  error: z.string().nullable(),
  /** Context for whoever asked (e.g. the conversation turn to resume). */
  context: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  executed_at: z.number().nullable(),
});
export type IntentRecord = z.infer<typeof IntentRecord>;

export const UsedCall = z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()) });
export type UsedCall = z.infer<typeof UsedCall>;

/**
 * One thread entry. A user turn and the presence's reply are ONE entry (one appended line),
 * so a crash can never leave a question without its answer visible. Unprompted speech
 * (standing intents, resumed actions) is an entry of its own.
 */
export const ThreadEntry = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('turn'),
    id: z.number().int(),
    at: z.number(),
    user: z.string(),
    reply: z.string(),
    used: z.array(UsedCall),
    touched: z.array(z.string()),
    acted: z.boolean(),
    tx: z.string().nullable(),
    confirm_id: z.string().nullable(),
    /** The turn's Idempotency-Key, so a retry that outran the stored answer finds the turn. */
    idempotency_key: z.string().nullable().optional(),
    /** The scopes the reply drew on (thread/scope-redaction.ts); absent in entries written before. */
    scopes: z.array(z.string()).optional(),
  }),
  z.object({
    kind: z.literal('presence'),
    id: z.number().int(),
    at: z.number(),
    text: z.string(),
    cause: z.string(),
    scopes: z.array(z.string()).optional(),
  }),
]);
export type ThreadEntry = z.infer<typeof ThreadEntry>;
export type NewThreadEntry = ThreadEntry extends infer E ? (E extends ThreadEntry ? Omit<E, 'id'> : never) : never;

/** One firing of a standing intent; `n` is its firing number (fired_count after it), stable across retries. */
export const StandingFire = z.object({
  n: z.number().int(),
  at: z.number(),
  /** Why it fired, in words ("WETH is 2431.12 USD, below your 2500.00 USD line"). */
  why: z.string(),
  /**
   * Set once the action (if any) is done and the words are fixed, with the thread and events
   * ids at that moment: completing it again looks past them for the message already said.
   */
  say: z.object({ text: z.string(), thread_after: z.number().int(), event_after: z.number().int() }).nullable(),
});
export type StandingFire = z.infer<typeof StandingFire>;

export const StandingRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  text: z.string(),
  trigger: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('price'), token: z.string(), op: z.enum(['below', 'above']), threshold_usd: z.string() }),
    z.object({ kind: z.literal('daily'), at: z.string().regex(/^\d{2}:\d{2}$/) }),
  ]),
  /** What happens when it fires: speak, report the balance, or submit an intent. */
  action: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('notify') }),
    z.object({ kind: z.literal('balance') }),
    z.object({ kind: z.literal('act'), intent: z.string() }),
  ]),
  /** Whether the key that created it held wallet:act (required for `act`). */
  may_act: z.boolean(),
  /** Hysteresis: fires on the crossing, then waits until the condition clears before re-arming. */
  armed: z.boolean(),
  next_at: z.number().nullable(),
  fired_count: z.number().int(),
  last_fired_at: z.number().nullable(),
  state: z.enum(['active', 'cancelled']),
  created_at: z.number(),
  /** The key that created it: an acting intent acts only while that key is live and holds wallet:act. */
  created_by: z.string().nullable().default(null),
  /**
   * Fires recorded together with the disarm and not yet completed, so a crash in between
   * never loses one: they are finished (idempotently, keyed by `n`) on the next beat.
   */
  pending: z.array(StandingFire).default([]),
});
export type StandingRecord = z.infer<typeof StandingRecord>;

export const LinkRecord = z.object({
  /**
   * HMAC-SHA-256 of the code under a subkey of the master key: the code is a bearer secret
   * until redeemed, so a copy of the file must not be enough to test guesses against.
   */
  hash: z.string(),
  account_id: z.string(),
  scopes: z.array(Scope),
  created_at: z.number(),
  expires_at: z.number(),
  redeemed_at: z.number().nullable(),
});
export type LinkRecord = z.infer<typeof LinkRecord>;
