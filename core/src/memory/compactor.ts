// The memory compactor (run hourly by the server, or by tests with a driven clock):
// - a fading key whose days_left reached 0 is dropped;
// - a fading key with weight >= 0.9 and at least 5 touches is promoted to pinned;
// - a key the compactor itself pinned that goes unseen for 30 days is demoted to fading
//   with 7 days left;
// - a user's pin is never dropped or demoted.
// Each change is announced as a `memory` event { key, tier }.
import type { Clock } from '../clock/clock';
import type { EventsLog } from '../events/events-log';
import type { MemoryEntry } from '../store/documents';
import type { StorePort } from '../store/store-port';
import { DAY_MS, daysLeft, effectiveWeight, FADE_DAYS, PROMOTE_TOUCHES, PROMOTE_WEIGHT } from './memory-rules';

type Change = { key: string; tier: 'pinned' | 'fading' | 'dropped' };

export function createCompactor({ store, clock, events }: { store: StorePort; clock: Clock; events: EventsLog }) {
  async function compactAccount(accountId: string): Promise<Change[]> {
    const now = clock.now();
    const changes = await store.updateMemory(accountId, (entries) => {
      const out: MemoryEntry[] = [];
      const changed: Change[] = [];
      for (const e of entries) {
        if (e.tier === 'pinned') {
          if (e.pinned_by === 'compactor' && daysLeft(e, now) === 0) {
            out.push({ ...e, tier: 'fading', pinned_by: null, last_seen: now - (FADE_DAYS - 7) * DAY_MS });
            changed.push({ key: e.key, tier: 'fading' });
          } else out.push(e);
        } else if (daysLeft(e, now) === 0) {
          changed.push({ key: e.key, tier: 'dropped' });
        } else if (effectiveWeight(e, now) >= PROMOTE_WEIGHT && e.touches >= PROMOTE_TOUCHES) {
          out.push({ ...e, tier: 'pinned', pinned_by: 'compactor' });
          changed.push({ key: e.key, tier: 'pinned' });
        } else out.push(e);
      }
      return { entries: changed.length ? out : entries, result: changed };
    });
    for (const c of changes) await events.emit(accountId, 'live', 'memory', c);
    return changes;
  }

  return {
    async runOnce(): Promise<Change[]> {
      const all: Change[] = [];
      for (const a of await store.listAccounts()) all.push(...(await compactAccount(a.id)));
      return all;
    },
  };
}
