// The store port: intention-named async operations over everything Presence keeps, composed
// of one port per record family (<family>-port.ts beside it). Core depends only on this; lowdb
// and PostgreSQL are its adapters (one file per family in each), both held to the contract
// in testing/ (`@presence/core/testing`, one suite per family). Records returned by reads are
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
import type { AccountsPort } from './accounts-port';
import type { EventsPort } from './events-port';
import type { IdempotencyPort } from './idempotency-port';
import type { IntentsPort } from './intents-port';
import type { KeysPort } from './keys-port';
import type { LinksPort } from './links-port';
import type { MemoryPort } from './memory-port';
import type { StandingPort } from './standing-port';
import type { ThreadPort } from './thread-port';
import type { WalletsPort } from './wallets-port';

export type { AccountsPort } from './accounts-port';
export type { EventBounds, EventsPort } from './events-port';
export type { IdempotencyPort } from './idempotency-port';
export type { IntentFilter, IntentsPort } from './intents-port';
export type { KeysPort } from './keys-port';
export type { LinksPort } from './links-port';
export type { MemoryChange, MemoryPeek, MemoryPort } from './memory-port';
export type { StandingDue, StandingPort } from './standing-port';
export type { ThreadPort } from './thread-port';
export type { WalletsPort } from './wallets-port';

/**
 * Everything the store keeps and how to change it: one port per record family (<family>-port.ts). On
 * the store itself each operation commits alone (or as one transaction, as its comment says);
 * on a unit of work (`StoreTx`, handed out by `atomically`) they commit together.
 */
export interface StoreOps
  extends AccountsPort,
    KeysPort,
    MemoryPort,
    EventsPort,
    IdempotencyPort,
    WalletsPort,
    IntentsPort,
    ThreadPort,
    StandingPort,
    LinksPort {}

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
