// Memory: list, pin, forget and touch keywords. Changes are announced as `memory` events.
// Each key kind reads and writes its own store (a test key's is the overlay: create-core).
// An account keeps at most `limits.memory` entries: a pin of a new key beyond it is refused
// (409, limit memory_per_account); a touch of a new key beyond it is skipped, since touches
// are the presence's own bookkeeping and must never fail a turn (fading keys decay anyway).
import type { MemoryListing } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { notFound } from '../errors/presence-error';
import type { EventsLog } from '../events/events-log';
import type { Caller } from '../keys/caller';
import { type AccountLimits, accountLimits, assertRoom } from '../limits/account-limits';
import type { MemoryEntry } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { MemoryPeek, StoreTx } from '../store/store-port';
import { daysLeft, effectiveWeight, touched, withDue } from './memory-rules';
import { createPinBatches } from './pin-batches';

export type MemoryService = ReturnType<typeof createMemoryService>;

export function createMemoryService({
  storeFor,
  clock,
  events,
  limits = accountLimits,
}: {
  storeFor: StoreFor;
  clock: Clock;
  events: EventsLog;
  limits?: Pick<AccountLimits, 'memory'>;
}) {
  /** `staged`: new keys the caller will pin before this one (a turn's earlier pins), counted as held. */
  /** `current` holds `key` and the staged keys (if stored), and the account's count. */
  const decidePin = (current: MemoryPeek, key: string, note: string | undefined, now: number, staged: ReadonlySet<string> = new Set()) => {
    const prev = current.found.get(key);
    if (!prev) {
      const stagedNew = [...staged].filter((k) => k !== key && !current.found.has(k)).length;
      assertRoom('memory', current.count + stagedNew, limits.memory);
    }
    const alreadyUserPinned = prev?.tier === 'pinned' && prev.pinned_by === 'user' && (note === undefined || note === prev.note);
    const next: MemoryEntry = withDue({
      ...touched(prev, key, now),
      tier: 'pinned',
      pinned_by: 'user',
      note: note ?? prev?.note ?? '',
    });
    return { next, changed: !alreadyUserPinned };
  };
  const notStored = (key: string) => notFound(`memory key ${key} is not stored`);

  /** A change is announced on the caller's events (the log does not carry a test key's: see events-log.ts). */
  const announce = (tx: StoreTx, caller: Caller, key: string, tier: 'pinned' | 'dropped') =>
    events.emitIn(tx, caller, 'memory', { key, tier });
  // One account's pins arriving together are written together (one commit), each decided in turn.
  const pins = createPinBatches({
    storeFor,
    now: () => clock.now(),
    decide: decidePin,
    announce: (tx, caller, key) => announce(tx, caller, key, 'pinned'),
  });

  return {
    async list(caller: Caller): Promise<MemoryListing> {
      const now = clock.now();
      const entries = await storeFor(caller.kind).readMemory(caller.accountId);
      const byKey = (a: MemoryEntry, b: MemoryEntry) => a.key.localeCompare(b.key);
      return {
        pinned: entries
          .filter((e) => e.tier === 'pinned')
          .sort(byKey)
          .map((e) => ({ key: e.key, note: e.note, tier: 'pinned' as const, weight: effectiveWeight(e, now), days_left: null })),
        fading: entries
          .filter((e) => e.tier === 'fading')
          .sort(byKey)
          .map((e) => ({
            key: e.key,
            note: e.note,
            tier: 'fading' as const,
            weight: effectiveWeight(e, now),
            days_left: daysLeft(e, now),
          })),
      };
    },

    async counts(caller: Caller) {
      const entries = await storeFor(caller.kind).readMemory(caller.accountId);
      const pinned = entries.filter((e) => e.tier === 'pinned').length;
      return { pinned, fading: entries.length - pinned };
    },

    /** Pins a key (a no-op answer when it already is, with that note). Not for a caller inside a unit of work (pin-batches.ts). */
    pin(caller: Caller, key: string, note?: string) {
      return pins(caller, key, note);
    },

    /**
     * What `pin` would answer, writing nothing (a turn answers first and writes once it is
     * stored); `staged` are the keys the turn will pin before this one.
     */
    async previewPin(caller: Caller, key: string, note?: string, staged?: ReadonlySet<string>) {
      const current = await storeFor(caller.kind).peekMemory(caller.accountId, [key, ...(staged ?? [])]);
      const { next, changed } = decidePin(current, key, note, clock.now(), staged);
      return { key, tier: 'pinned' as const, note: next.note, changed };
    },

    async forget(caller: Caller, key: string) {
      const store = storeFor(caller.kind);
      const found = await store.atomically(async (tx) => {
        const gone = await tx.changeMemory(caller.accountId, [key], (current) =>
          current.found.has(key) ? { remove: [key], result: true } : { result: false },
        );
        if (gone) await announce(tx, caller, key, 'dropped');
        return gone;
      });
      if (!found) throw notStored(key);
      return { key, forgotten: true as const };
    },

    /** What `forget` would answer, writing nothing. */
    async previewForget(caller: Caller, key: string) {
      if (!(await storeFor(caller.kind).peekMemory(caller.accountId, [key])).found.has(key)) throw notStored(key);
      return { key, forgotten: true as const };
    },

    /** A turn mentioned these keys: raise their weight and restart their clock. Answers the keys touched. */
    async touch(caller: Caller, keys: readonly string[]): Promise<string[]> {
      const unique = [...new Set(keys)];
      if (unique.length === 0) return unique;
      const now = clock.now();
      return storeFor(caller.kind).changeMemory(caller.accountId, unique, ({ found, count }) => {
        const put: MemoryEntry[] = [];
        let held = count;
        for (const k of unique) {
          const prev = found.get(k);
          if (!prev && held >= limits.memory) continue;
          if (!prev) held++;
          put.push(touched(prev, k, now));
        }
        return { put, result: put.map((e) => e.key) };
      });
    },
  };
}
