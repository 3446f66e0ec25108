// The store port: intention-named async operations over everything Presence keeps. Core
// depends only on this; lowdb and PostgreSQL are its adapters, both held to the contract in
// testing/store-contract.ts (`@presence/core/testing`). Records returned by reads are
// immutable snapshots (frozen by the embedded adapter).
//
// One convention for changes, in this order of preference:
// - A record that exists is changed by an updater, `update*(id, fn)`: `fn` runs on the stored
//   record under its lock (read-modify-write never loses a write) and the operation answers
//   the record as stored — or null when there is none. An adapter never decides what a
//   missing record means to a caller (that is core's: a 404, a no-op); it throws only
//   store_unavailable, or what `fn` threw.
// - A change whose rule is a condition on the stored state answers null when the condition
//   does not hold (compare-and-set: `transitionIntent`, `redeemLink`), for the same reason.
// - New records are written by `create*`/`insert*`/`put*`/`append*`: they say how a
//   duplicate is treated (first writer wins, a conflict, or the newest kept).
// - Work across accounts is set-based (`due*`, `prune*`, `intentsInStates`), never a loop.
// Coordination between servers (locks, Idempotency-Key leases) is not kept here: see
// cluster/cluster-port.ts and idempotency/idempotency-leases.ts.
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

/** What a memory change decides from the entries it named: rows to write, keys to remove, and its answer. */
export type MemoryChange<T> = { put?: readonly MemoryEntry[]; remove?: readonly string[]; result: T };

/** The named entries of one account that exist, by key, and how many entries the account keeps. */
export type MemoryPeek = { found: ReadonlyMap<string, MemoryEntry>; count: number };

/** Standing intents that may fire now (see `dueStanding`). */
export type StandingDue = {
  now: number;
  /** The price moved (a new block): every active price trigger is checked. */
  pricesMoved: boolean;
  /** Otherwise only price triggers created at or after this time (ms epoch) are. */
  createdSince: number;
};

/**
 * Everything the store keeps and how to change it. On the store itself each operation commits
 * alone (or as one transaction, as its comment says); on a unit of work (`StoreTx`, handed out
 * by `atomically`) they commit together.
 */
export interface StoreOps {
  createAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;
  updateAccount(id: string, update: (account: AccountRecord) => AccountRecord): Promise<AccountRecord | null>;

  insertKey(key: KeyRecord): Promise<void>;
  getKey(id: string): Promise<KeyRecord | null>;
  findKeyBySecretHash(hash: string): Promise<KeyRecord | null>;
  listKeys(accountId: string): Promise<KeyRecord[]>;
  updateKey(id: string, update: (key: KeyRecord) => KeyRecord): Promise<KeyRecord | null>;

  // Memory entries are rows: a change names its keys, and only those rows are read and
  // written, so its cost never depends on how many entries the account keeps.
  readMemory(accountId: string): Promise<MemoryEntry[]>;
  peekMemory(accountId: string, keys: readonly string[]): Promise<MemoryPeek>;
  /**
   * Runs `decide` on the named entries and the account's count and applies what it answers,
   * atomically: what it writes was decided under the locks the write needs. `decide` may run
   * more than once (it must have no effects of its own), and an answer that writes nothing may
   * come from a read taken without any lock (a concurrent change then counts as after it).
   * `likelyWrites`: the caller expects a write (a pin with a note it has not seen there), so a
   * store that would first read without locks, hoping to write nothing, goes straight to them.
   */
  changeMemory<T>(
    accountId: string,
    keys: readonly string[],
    decide: (current: MemoryPeek) => MemoryChange<T>,
    options?: { likelyWrites?: boolean },
  ): Promise<T>;
  /** Across accounts: the entries whose `due_at` is at or before `now` (what the compactor looks at), at most `limit`. */
  memoryDue(now: number, limit: number): Promise<{ account_id: string; key: string }[]>;

  /** Appends with the next per-account id (1, 2, 3…); the id is assigned under the log's lock. */
  appendEvent(accountId: string, event: Omit<StoredEvent, 'id'>): Promise<StoredEvent>;
  eventsAfter(accountId: string, afterId: number, limit: number): Promise<StoredEvent[]>;
  eventBounds(accountId: string): Promise<EventBounds>;
  /** Drops events beyond the newest `keepLast` or older than `olderThan` (ms epoch). */
  pruneEvents(accountId: string, keepLast: number, olderThan: number): Promise<number>;
  /** Across accounts, set-based: drops events older than `olderThan` (an account may keep its newest). */
  pruneEventsOlderThan(olderThan: number): Promise<number>;

  getIdempotencyRecord(accountId: string, key: string): Promise<IdempotencyRecord | null>;
  putIdempotencyRecord(accountId: string, record: IdempotencyRecord): Promise<void>;
  pruneIdempotency(olderThan: number): Promise<number>;

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
  /** Across accounts, for recovery at start and upkeep; indexed for held, executing and signed. */
  intentsInStates(states: readonly IntentState[]): Promise<IntentRecord[]>;
  /** Across accounts: held intents whose `expires_at` is at or before `now`. */
  dueHolds(now: number): Promise<IntentRecord[]>;

  /** Appends with the next per-account thread id. */
  appendThread(accountId: string, entry: NewThreadEntry): Promise<ThreadEntry>;
  /** Newest last: up to `limit` entries with id < `before` (or the newest when absent). */
  readThread(accountId: string, opts: { before?: number; limit: number }): Promise<ThreadEntry[]>;

  putStanding(record: StandingRecord): Promise<void>;
  listStanding(accountId: string): Promise<StandingRecord[]>;
  /**
   * Across accounts, one indexed query: records with fires pending, and active ones whose
   * trigger may hold now (daily ones past `next_at`; price ones as `due` says).
   */
  dueStanding(due: StandingDue): Promise<StandingRecord[]>;
  updateStanding(accountId: string, id: string, update: (r: StandingRecord) => StandingRecord): Promise<StandingRecord | null>;

  /** Stores a new link code and drops codes expired before `now`. */
  putLink(link: LinkRecord, now: number): Promise<void>;
  /** Marks the link redeemed if it is unredeemed and unexpired at `now`; answers it, or null. */
  redeemLink(hash: string, now: number): Promise<LinkRecord | null>;
  /** How many of the account's links are neither redeemed nor expired at `now` (its cap is checked against it). */
  countOutstandingLinks(accountId: string, now: number): Promise<number>;
}

/**
 * A unit of work: the store's operations, all in one transaction (PostgreSQL). Only what is
 * handed this value joins it: a call on the store itself, from inside the callback or not,
 * never does.
 */
export interface StoreTx extends StoreOps {
  /**
   * Runs `fn` once what this unit wrote is visible to other readers: after its commit (never
   * when it rolls back), or at once where each write is visible when it resolves (the embedded
   * store, the test keys' overlay). Anything that speaks to the outside about the unit's writes
   * (a stream's wake-up, a cache drop, a prune) goes here. `fn` must not throw.
   */
  afterCommit(fn: () => void): void;
}

/**
 * Who may share the store: one process (the embedded store, the test keys' overlay), or many
 * servers (PostgreSQL), which core can serve only with the cluster port (create-core.ts).
 */
export type StoreSharing = 'embedded' | 'shared';

export interface StorePort<S extends StoreSharing = StoreSharing> extends StoreOps {
  readonly sharing: S;
  /**
   * Runs `fn` with a unit of work, committed when `fn` resolves (PostgreSQL: one transaction;
   * the embedded store writes each durably as it goes, as always). For writes that wait on
   * nothing but the store: a pin's entry and its event, not an intent's chain calls. A call
   * here from inside a unit opens a second, separate one, which may wait for the first's locks:
   * pass the unit instead.
   */
  atomically<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The store of one process: lowdb, or an overlay. */
export type EmbeddedStore = StorePort<'embedded'>;
/** A store several servers share (PostgreSQL). */
export type SharedStore = StorePort<'shared'>;
