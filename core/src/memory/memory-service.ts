// Memory: list, pin, forget and touch keywords. Changes are announced as `memory` events.
// Each key kind reads and writes its own store (a test key's is the overlay: create-core).
// An account keeps at most `limits.memory` entries: a pin of a new key beyond it is refused
// (409, limit memory_per_account); a touch of a new key beyond it is skipped, since touches
// are the presence's own bookkeeping and must never fail a turn (fading keys decay anyway).
import type { KeyKind, MemoryListing } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { notFound } from '../errors/presence-error';
import type { EventsLog } from '../events/events-log';
import { type AccountLimits, accountLimits, assertRoom } from '../limits/account-limits';
import type { MemoryEntry } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import { daysLeft, effectiveWeight, touched } from './memory-rules';

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
  const decidePin = (
    entries: readonly MemoryEntry[],
    key: string,
    note: string | undefined,
    now: number,
    staged: ReadonlySet<string> = new Set(),
  ) => {
    const i = entries.findIndex((e) => e.key === key);
    const prev = entries[i];
    if (!prev) {
      const stagedNew = [...staged].filter((k) => k !== key && !entries.some((e) => e.key === k)).length;
      assertRoom('memory', entries.length + stagedNew, limits.memory);
    }
    const alreadyUserPinned = prev?.tier === 'pinned' && prev.pinned_by === 'user' && (note === undefined || note === prev.note);
    const next: MemoryEntry = {
      ...touched(prev, key, now),
      tier: 'pinned',
      pinned_by: 'user',
      note: note ?? prev?.note ?? '',
    };
    return { i, next, changed: !alreadyUserPinned };
  };
  const notStored = (key: string) => notFound(`memory key ${key} is not stored`);

  /**
   * The one mode check here: memory changes are announced to live keys only. Nothing a test
   * key writes is broadcast (DESIGN.md), not even on its own stream, which carries what its
   * simulated actions lead to (holds, their answers, what the presence says about them).
   */
  const announce = (accountId: string, mode: KeyKind, key: string, tier: 'pinned' | 'dropped') =>
    mode === 'live' ? events.emit(accountId, mode, 'memory', { key, tier }) : undefined;

  return {
    async list(accountId: string, mode: KeyKind): Promise<MemoryListing> {
      const now = clock.now();
      const entries = await storeFor(mode).readMemory(accountId);
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

    async counts(accountId: string, mode: KeyKind) {
      const entries = await storeFor(mode).readMemory(accountId);
      const pinned = entries.filter((e) => e.tier === 'pinned').length;
      return { pinned, fading: entries.length - pinned };
    },

    async pin(accountId: string, mode: KeyKind, key: string, note?: string) {
      const now = clock.now();
      const { next, changed } = await storeFor(mode).updateMemory(accountId, (entries) => {
        const d = decidePin(entries, key, note, now);
        // A repeated pin is a no-op: nothing written, so nothing to lose or reorder.
        if (!d.changed) return { entries, result: d };
        const out = [...entries];
        if (d.i >= 0) out[d.i] = d.next;
        else out.push(d.next);
        return { entries: out, result: d };
      });
      if (changed) await announce(accountId, mode, key, 'pinned');
      return { key, tier: 'pinned' as const, note: next.note, changed };
    },

    /**
     * What `pin` would answer, writing nothing (a turn answers first and writes once it is
     * stored); `staged` are the keys the turn will pin before this one.
     */
    async previewPin(accountId: string, mode: KeyKind, key: string, note?: string, staged?: ReadonlySet<string>) {
      const { next, changed } = decidePin(await storeFor(mode).readMemory(accountId), key, note, clock.now(), staged);
      return { key, tier: 'pinned' as const, note: next.note, changed };
    },

    async forget(accountId: string, mode: KeyKind, key: string) {
      const found = await storeFor(mode).updateMemory(accountId, (entries) => {
        const out = entries.filter((e) => e.key !== key);
        return { entries: out, result: out.length !== entries.length };
      });
      if (!found) throw notStored(key);
      await announce(accountId, mode, key, 'dropped');
      return { key, forgotten: true as const };
    },

    /** What `forget` would answer, writing nothing. */
    async previewForget(accountId: string, mode: KeyKind, key: string) {
      if (!(await storeFor(mode).readMemory(accountId)).some((e) => e.key === key)) throw notStored(key);
      return { key, forgotten: true as const };
    },

    /** A turn mentioned these keys: raise their weight and restart their clock. Answers the keys touched. */
    async touch(accountId: string, mode: KeyKind, keys: readonly string[]): Promise<string[]> {
      const unique = [...new Set(keys)];
      if (unique.length === 0) return unique;
      const now = clock.now();
      return storeFor(mode).updateMemory(accountId, (entries) => {
        const byKey = new Map(entries.map((e) => [e.key, e]));
        const done: string[] = [];
        for (const k of unique) {
          const prev = byKey.get(k);
          if (!prev && byKey.size >= limits.memory) continue;
          byKey.set(k, touched(prev, k, now));
          done.push(k);
        }
        return { entries: [...byKey.values()], result: done };
      });
    },
  };
}
