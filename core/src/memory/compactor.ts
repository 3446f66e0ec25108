// The memory compactor (run hourly by the server, or by tests with a driven clock):
// - a fading key whose days_left reached 0 is dropped;
// - a fading key with weight >= 0.9 and at least 5 touches is promoted to pinned;
// - a key the compactor itself pinned that goes unseen for 30 days is demoted to fading
//   with 7 days left;
// - a user's pin is never dropped or demoted.
// Each change is announced as a `memory` event { key, tier }.
// It reads only entries whose `due_at` has come (memory-rules.ts `compactionDue`), with one
// indexed query per batch: its cost follows the entries with something to do.
import type { Clock } from '../clock/clock';
import type { EventsLog } from '../events/events-log';
import { accountCaller } from '../keys/caller';
import { type MemoryEntry, memoryDueAt } from '../store/documents';
import type { StorePort } from '../store/store-port';
import { compactionDue, DAY_MS, daysLeft, effectiveWeight, FADE_DAYS, PROMOTE_TOUCHES, PROMOTE_WEIGHT, withDue } from './memory-rules';

type Change = { key: string; tier: 'pinned' | 'fading' | 'dropped' };

/** How many due entries one query takes; the run goes on until none are due. */
const BATCH = 1_000;

/**
 * Applies the rules to one entry the index says is due; null drops it. An entry that turns out
 * to need nothing (touched since, or not heavy enough) is written back with its next due time.
 */
function compact(e: MemoryEntry, now: number): { next: MemoryEntry | null; change: Change | null } {
  if (e.tier === 'pinned') {
    if (e.pinned_by === 'compactor' && daysLeft(e, now) === 0) {
      const next = withDue({ ...e, tier: 'fading', pinned_by: null, last_seen: now - (FADE_DAYS - 7) * DAY_MS });
      return { next, change: { key: e.key, tier: 'fading' } };
    }
  } else if (daysLeft(e, now) === 0) {
    return { next: null, change: { key: e.key, tier: 'dropped' } };
  } else if (effectiveWeight(e, now) >= PROMOTE_WEIGHT && e.touches >= PROMOTE_TOUCHES) {
    return { next: withDue({ ...e, tier: 'pinned', pinned_by: 'compactor' }), change: { key: e.key, tier: 'pinned' } };
  }
  // Nothing to do: a fading key that was not promoted now never will be without a touch (which
  // sets its time again), so it is next due when its days run out.
  return { next: { ...e, due_at: e.tier === 'fading' ? e.last_seen + FADE_DAYS * DAY_MS : compactionDue(e) }, change: null };
}

export function createCompactor({ store, clock, events }: { store: StorePort; clock: Clock; events: EventsLog }) {
  /** One account's due entries and the events announcing what changed, in one unit of work (they commit together). */
  const compactAccount = (accountId: string, keys: readonly string[], now: number): Promise<Change[]> =>
    store.atomically(async (tx) => {
      const changes = await tx.changeMemory(accountId, keys, ({ found }) => {
        const put: MemoryEntry[] = [];
        const remove: string[] = [];
        const changed: Change[] = [];
        for (const e of found.values()) {
          const due = memoryDueAt(e);
          if (due === null || due > now) continue; // touched since the query
          const { next, change } = compact(e, now);
          if (next) put.push(next);
          else remove.push(e.key);
          if (change) changed.push(change);
        }
        return { put, remove, result: changed };
      });
      for (const c of changes) await events.emitIn(tx, accountCaller(accountId), 'memory', c);
      return changes;
    });

  return {
    /** One pass over the entries that are due (one indexed query per batch), never over every account. */
    async runOnce(): Promise<Change[]> {
      const now = clock.now();
      const all: Change[] = [];
      for (;;) {
        const due = await store.memoryDue(now, BATCH);
        if (due.length === 0) return all;
        const byAccount = new Map<string, string[]>();
        for (const d of due) {
          const keys = byAccount.get(d.account_id);
          if (keys) keys.push(d.key);
          else byAccount.set(d.account_id, [d.key]);
        }
        for (const [accountId, keys] of byAccount) all.push(...(await compactAccount(accountId, keys, now)));
        if (due.length < BATCH) return all;
      }
    },
  };
}
