// Where events are kept. Live events go to the durable store; a test key's events live in
// an in-memory sandbox that live keys never see and that no restart keeps.
import type { StoredEvent } from '../store/documents';
import type { StorePort } from '../store/store-port';

export type EventStore = Pick<StorePort, 'appendEvent' | 'eventsAfter' | 'eventBounds' | 'pruneEvents'>;

export function createMemoryEventStore(): EventStore {
  const logs = new Map<string, { events: StoredEvent[]; next: number }>();
  const log = (id: string) => {
    let l = logs.get(id);
    if (!l) {
      l = { events: [], next: 1 };
      logs.set(id, l);
    }
    return l;
  };
  return {
    async appendEvent(accountId, event) {
      const l = log(accountId);
      const stored = { id: l.next++, ...event };
      l.events.push(stored);
      return stored;
    },
    async eventsAfter(accountId, afterId, limit) {
      return log(accountId)
        .events.filter((e) => e.id > afterId)
        .slice(0, limit);
    },
    async eventBounds(accountId) {
      const l = log(accountId);
      return { oldest: l.events[0]?.id ?? null, latest: l.next - 1 };
    },
    async pruneEvents(accountId, keepLast, olderThan) {
      const l = log(accountId);
      const before = l.events.length;
      l.events = l.events.filter((e, i) => i >= before - keepLast && e.at >= olderThan);
      return before - l.events.length;
    },
  };
}
