// Memory: list, pin, forget and touch keywords. Changes are announced as `memory` events.
// A test key's writes are answered as if done but change nothing.
import type { KeyKind, MemoryListing } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { notFound } from '../errors/presence-error';
import type { EventsLog } from '../events/events-log';
import type { MemoryEntry } from '../store/documents';
import type { StorePort } from '../store/store-port';
import { daysLeft, effectiveWeight, touched } from './memory-rules';

export type MemoryService = ReturnType<typeof createMemoryService>;

export function createMemoryService({ store, clock, events }: { store: StorePort; clock: Clock; events: EventsLog }) {
  return {
    async list(accountId: string): Promise<MemoryListing> {
      const now = clock.now();
      const entries = await store.readMemory(accountId);
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

    async counts(accountId: string) {
      const entries = await store.readMemory(accountId);
      const pinned = entries.filter((e) => e.tier === 'pinned').length;
      return { pinned, fading: entries.length - pinned };
    },

    async pin(accountId: string, mode: KeyKind, key: string, note?: string) {
      const now = clock.now();
      const decide = (entries: MemoryEntry[]) => {
        const i = entries.findIndex((e) => e.key === key);
        const prev = entries[i];
        const alreadyUserPinned = prev?.tier === 'pinned' && prev.pinned_by === 'user' && (note === undefined || note === prev.note);
        const next: MemoryEntry = {
          ...touched(prev, key, now),
          tier: 'pinned',
          pinned_by: 'user',
          note: note ?? prev?.note ?? '',
        };
        return { i, next, changed: !alreadyUserPinned, prev };
      };
      if (mode === 'test') {
        const { next, changed } = decide(await store.readMemory(accountId));
        return { key, tier: 'pinned' as const, note: next.note, changed };
      }
      const { next, changed } = await store.updateMemory(accountId, (entries) => {
        const d = decide(entries);
        // A repeated pin is a no-op: nothing written, so nothing to lose or reorder.
        if (!d.changed) return { entries, result: d };
        const out = [...entries];
        if (d.i >= 0) out[d.i] = d.next;
        else out.push(d.next);
        return { entries: out, result: d };
      });
      if (changed) await events.emit(accountId, 'live', 'memory', { key, tier: 'pinned' });
      return { key, tier: 'pinned' as const, note: next.note, changed };
    },

    async forget(accountId: string, mode: KeyKind, key: string) {
      if (mode === 'test') {
        if (!(await store.readMemory(accountId)).some((e) => e.key === key)) throw notFound(`memory key ${key} is not stored`);
        return { key, forgotten: true as const };
      }
      const found = await store.updateMemory(accountId, (entries) => {
        const out = entries.filter((e) => e.key !== key);
        return { entries: out, result: out.length !== entries.length };
      });
      if (!found) throw notFound(`memory key ${key} is not stored`);
      await events.emit(accountId, 'live', 'memory', { key, tier: 'dropped' });
      return { key, forgotten: true as const };
    },

    /** A turn mentioned these keys: raise their weight and restart their clock. */
    async touch(accountId: string, mode: KeyKind, keys: readonly string[]): Promise<string[]> {
      const unique = [...new Set(keys)];
      if (unique.length === 0 || mode === 'test') return unique;
      const now = clock.now();
      await store.updateMemory(accountId, (entries) => {
        const byKey = new Map(entries.map((e) => [e.key, e]));
        for (const k of unique) byKey.set(k, touched(byKey.get(k), k, now));
        return { entries: [...byKey.values()], result: undefined };
      });
      return unique;
    },
  };
}
