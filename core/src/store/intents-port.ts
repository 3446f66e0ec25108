// The intents family of the store port (store-port.ts): each action an account asked for, and
// the states it moves through.
import type { IntentRecord, IntentState } from './documents';

/** Which of an account's intents to list; every list is in the order they were created. */
export type IntentFilter = {
  states?: readonly IntentState[];
  /** Only those held for approval at some point (they carry a confirm id). */
  confirmable?: boolean;
  /** Only the newest `last` of those matching: what a page of history costs, whatever the account keeps. */
  last?: number;
};

export interface IntentsPort {
  /**
   * A record created in `executing` may be held back from the disk until its first
   * transition: until then nothing is signed or answered, so a crash that loses it loses
   * nothing (and one that keeps it is released at start). Every other write is durable
   * when it resolves.
   */
  createIntent(intent: IntentRecord): Promise<void>;
  getIntent(accountId: string, id: string): Promise<IntentRecord | null>;
  findIntentByConfirmId(accountId: string, confirmId: string): Promise<IntentRecord | null>;
  findIntentByIdempotencyKey(accountId: string, key: string): Promise<IntentRecord | null>;
  /**
   * Compare-and-set: moves the intent to `to` (with `patch`) only if its state is one of
   * `from`; answers the updated record, or null when the state had already moved on.
   */
  transitionIntent(
    accountId: string,
    id: string,
    from: readonly IntentState[],
    to: IntentState,
    patch?: Partial<Omit<IntentRecord, 'id' | 'account_id' | 'state'>>,
  ): Promise<IntentRecord | null>;
  listIntents(accountId: string, filter?: IntentFilter): Promise<IntentRecord[]>;
  /** How many of the account's intents wait for approval (held, past their time or not): what the cap on holds counts. */
  heldCount(accountId: string): Promise<number>;
  /** USD (1e18) of the account's intents executing, signed or done that spent (executed, or
   * last changed while in flight) at or after `since`: what daily_cap is checked against. */
  spentSince(accountId: string, since: number): Promise<bigint>;
  /** Across accounts, for recovery at start and upkeep; indexed for held, executing and signed. */
  intentsInStates(states: readonly IntentState[]): Promise<IntentRecord[]>;
  /** Across accounts: held intents whose `expires_at` is at or before `now`. */
  dueHolds(now: number): Promise<IntentRecord[]>;
}
