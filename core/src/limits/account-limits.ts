// What one account may keep of what its clients can grow: every such collection has a cap,
// so one key cannot grow an account's documents without bound (on the embedded store each is
// a per-account file rewritten on every write). The services that create each thing enforce
// its cap, and answer 409 `conflict` with a `limit` member naming it (`atLimit`). Tests pass
// smaller limits through the factories' options; the server reads PRESENCE_MAX_*_PER_ACCOUNT.
import { PresenceError } from '../errors/presence-error';

export type AccountLimits = {
  /** Keys not revoked (live and test together). */
  keys: number;
  /** Link codes neither redeemed nor expired. */
  links: number;
  /** Active standing intents, per key kind's store. */
  standing: number;
  /** Memory entries, pinned and fading together. */
  memory: number;
  /** Webhook endpoints (live and test keys' together). */
  webhooks: number;
  /** Actions waiting for approval, per key kind's store. */
  held: number;
};

export const accountLimits: Readonly<AccountLimits> = Object.freeze({
  keys: 100,
  links: 20,
  standing: 100,
  memory: 500,
  webhooks: 16,
  held: 50,
});

/** The `limit` member of each cap's refusal: stable names clients can switch on. */
export const limitNames = {
  keys: 'keys_per_account',
  links: 'links_per_account',
  standing: 'standing_per_account',
  memory: 'memory_per_account',
  webhooks: 'webhooks_per_account',
  held: 'held_per_account',
} as const satisfies Record<keyof AccountLimits, string>;

const what: Record<keyof AccountLimits, (n: number) => string> = {
  keys: (n) => `An account holds at most ${n} keys that are not revoked; revoke one first.`,
  links: (n) => `An account has at most ${n} unused link codes at once; redeem one or wait for one to expire first.`,
  standing: (n) => `An account keeps at most ${n} active standing intents; cancel one first.`,
  memory: (n) => `The presence remembers at most ${n} keys per account; forget one first.`,
  webhooks: (n) => `An account has at most ${n} webhook endpoints; delete one first.`,
  held: (n) => `An account has at most ${n} actions waiting for approval; approve or deny one (or let it expire) first.`,
};

/** The refusal of a new `kind` when the account already holds `max` of them. */
export function atLimit(kind: keyof AccountLimits, max: number, more = ''): PresenceError {
  return new PresenceError('conflict', `${what[kind](max)}${more}`, { extra: { limit: limitNames[kind] } });
}

/** Throws `atLimit` when `held` (what the account has now) leaves no room for one more. */
export function assertRoom(kind: keyof AccountLimits, held: number, max: number, more = ''): void {
  if (held >= max) throw atLimit(kind, max, more);
}
