// What test keys read and write: an overlay on the live store. Reads go through to live data
// and see the overlay's own writes; writes stay in this process's memory, are never
// persisted, and nothing reading the live store sees them. Core gives its services this
// store for test keys and the live one for live keys (create-core), so a test key runs the
// live behaviour over another store instead of a second, simulated implementation.
//
// Records (accounts, keys, memory entries, wallets, standing intents) are overlaid one by
// one: the overlay keeps the fields its writes changed (the whole record when it made one, a
// tombstone when it removed one) and every other field, and every other record, reads live.
// The thread reads as the live thread with the overlay's own entries merged in by id.
// Events, intents, Idempotency-Key answers and link codes are the overlay's own only: an
// event id is a place in one sequence (one Last-Event-ID cannot point into two), a test key's
// intents are simulated actions that must neither count against nor act on real ones, a
// test request must never replay a live answer, and the port cannot read a link code
// without redeeming it.
//
// One module per group of families, by how it is overlaid: overlay-records.ts (accounts, keys,
// wallets, standing intents), overlay-memory.ts, overlay-logs.ts (events, thread) and
// overlay-own.ts (answers, intents, link codes), on what overlay-context.ts gives each.
//
// Its memory is a resource a client can grow, so it is capped per account: each family
// keeps the account's last `maxRecords` changes (an older change is forgotten and its
// record reads live again; the oldest events, intents and answers are dropped), and an
// account's whole overlay is dropped after `idleMs` without a write. A restart drops all.
import type { KeyKind } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { immediateUnits } from './immediate-units';
import { createOverlayAccounts, type OverlayAccounts } from './overlay-accounts';
import { createOverlayContext } from './overlay-context';
import { overlayLogs } from './overlay-logs';
import { overlayMemory } from './overlay-memory';
import { overlayOwn } from './overlay-own';
import { overlayRecords } from './overlay-records';
import type { EmbeddedStore, StoreOps, StorePort } from './store-port';

/** What a key of each kind uses (its store, its leases): chosen once, in create-core. */
export type ByKind<T> = (kind: KeyKind) => T;
/** The store a key of each kind reads and writes. */
export type StoreFor = ByKind<StorePort>;

export type OverlayCaps = {
  /** Per account and family: changed records, thread entries, events, intents, answers, link codes. */
  maxRecords: number;
  /** An account's overlay is dropped this long after its last write. */
  idleMs: number;
};

/** A day: as long as a hold may wait (confirm_timeout_s ≤ 86,400) and an answer is replayed. */
export const defaultOverlayCaps: OverlayCaps = { maxRecords: 200, idleMs: 24 * 3600_000 };

/** The accounts' overlays a store works on: its own, or one a sharing wrapper also reaches (shared-overlay.ts). */
export const overlayAccountsFor = (clock: Clock, caps?: Partial<OverlayCaps>) =>
  createOverlayAccounts({ clock, idleMs: { ...defaultOverlayCaps, ...caps }.idleMs });

export function createOverlayStore(
  live: StorePort,
  { clock, caps, accounts = overlayAccountsFor(clock, caps) }: { clock: Clock; caps?: Partial<OverlayCaps>; accounts?: OverlayAccounts },
): EmbeddedStore {
  const { maxRecords } = { ...defaultOverlayCaps, ...caps };
  const ctx = createOverlayContext(live, accounts, maxRecords);
  const store: StoreOps = { ...overlayRecords(ctx), ...overlayMemory(ctx), ...overlayLogs(ctx), ...overlayOwn(ctx) };
  return {
    sharing: 'embedded',
    ...store,
    atomically: immediateUnits(store), // a test key's writes stay in memory: nothing to commit together
    async close() {
      // The live store is its owner's to close; this only lets go of what it kept.
      accounts.clear();
    },
  };
}
