// The store port: intention-named async operations over everything Presence keeps. Core
// depends only on this; lowdb is one adapter, PostgreSQL can be another. Updaters passed
// to `update*` run under that document's lock (read-modify-write never loses a write).
// Records returned by reads are immutable snapshots (frozen by the embedded adapter); to
// change one, go through an update operation.
import type {
  AccountRecord,
  IdempotencyRecord,
  IntentRecord,
  IntentState,
  KeyRecord,
  LinkRecord,
  MemoryEntry,
  NewThreadEntry,
  StandingRecord,
  StoredEvent,
  ThreadEntry,
  WalletRecord,
} from './documents';

export type EventBounds = { oldest: number | null; latest: number };

/** An Idempotency-Key whose first request is running: who runs it, for what, until when (ms epoch). */
export type InFlightClaim = { owner: string; fingerprint: string; expires_at: number };

export interface StorePort {
  createAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;
  updateAccount(id: string, update: (account: AccountRecord) => AccountRecord): Promise<AccountRecord>;

  insertKey(key: KeyRecord): Promise<void>;
  getKey(id: string): Promise<KeyRecord | null>;
  findKeyBySecretHash(hash: string): Promise<KeyRecord | null>;
  listKeys(accountId: string): Promise<KeyRecord[]>;
  updateKey(id: string, update: (key: KeyRecord) => KeyRecord): Promise<KeyRecord>;

  readMemory(accountId: string): Promise<MemoryEntry[]>;
  updateMemory<T>(accountId: string, update: (entries: MemoryEntry[]) => { entries: MemoryEntry[]; result: T }): Promise<T>;

  /** Appends with the next per-account id (1, 2, 3…); the id is assigned under the log's lock. */
  appendEvent(accountId: string, event: Omit<StoredEvent, 'id'>): Promise<StoredEvent>;
  eventsAfter(accountId: string, afterId: number, limit: number): Promise<StoredEvent[]>;
  eventBounds(accountId: string): Promise<EventBounds>;
  /** Drops events beyond the newest `keepLast` or older than `olderThan` (ms epoch). */
  pruneEvents(accountId: string, keepLast: number, olderThan: number): Promise<number>;

  getIdempotencyRecord(accountId: string, key: string): Promise<IdempotencyRecord | null>;
  putIdempotencyRecord(accountId: string, record: IdempotencyRecord): Promise<void>;
  pruneIdempotency(olderThan: number): Promise<number>;
  /**
   * Claims the key for `claim.owner` unless another owner holds a claim that has not expired
   * at `now`; answers the claim that holds afterwards (the caller's own when it got it). Every
   * server sees the same claims, so a duplicate request anywhere waits for the first.
   */
  claimIdempotencyKey(accountId: string, key: string, claim: InFlightClaim, now: number): Promise<InFlightClaim>;
  /** Extends the owner's lease; false when the claim is no longer the owner's (it expired and was taken over). */
  renewIdempotencyClaim(accountId: string, key: string, owner: string, expiresAt: number): Promise<boolean>;
  /** Drops the owner's claim (its answer is stored, or it gave up); another owner's is left alone. */
  releaseIdempotencyClaim(accountId: string, key: string, owner: string): Promise<void>;

  getWallet(accountId: string): Promise<WalletRecord | null>;
  /** Stores the wallet unless one exists; answers whichever is stored (first writer wins). */
  createWallet(wallet: WalletRecord): Promise<WalletRecord>;
  markWalletFunded(accountId: string): Promise<void>;

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
  listIntents(accountId: string, filter?: { states?: readonly IntentState[] }): Promise<IntentRecord[]>;
  /** USD (1e18) of the account's intents executing, signed or done that spent (executed, or
   * last changed while in flight) at or after `since`: what daily_cap is checked against. */
  spentSince(accountId: string, since: number): Promise<bigint>;
  /** Across accounts, for recovery at start and expiry sweeps. */
  intentsInStates(states: readonly IntentState[]): Promise<IntentRecord[]>;

  /** Appends with the next per-account thread id. */
  appendThread(accountId: string, entry: NewThreadEntry): Promise<ThreadEntry>;
  /** Newest last: up to `limit` entries with id < `before` (or the newest when absent). */
  readThread(accountId: string, opts: { before?: number; limit: number }): Promise<ThreadEntry[]>;

  putStanding(record: StandingRecord): Promise<void>;
  listStanding(accountId?: string): Promise<StandingRecord[]>;
  updateStanding(accountId: string, id: string, update: (r: StandingRecord) => StandingRecord): Promise<StandingRecord | null>;

  /** Stores a new link code and drops codes expired before `now`. */
  putLink(link: LinkRecord, now: number): Promise<void>;
  /** Marks the link redeemed if it is unredeemed and unexpired at `now`; answers it, or null. */
  redeemLink(hash: string, now: number): Promise<LinkRecord | null>;
  /** How many of the account's links are neither redeemed nor expired at `now` (its cap is checked against it). */
  countOutstandingLinks(accountId: string, now: number): Promise<number>;

  close(): Promise<void>;
}
