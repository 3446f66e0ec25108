// The test keys' overlay (overlay-store.ts) of the numbered logs. Events are the overlay's own
// only: an event id is a place in one sequence (one Last-Event-ID cannot point into two). The
// thread reads as the live thread with the overlay's own entries merged in by id.
import type { StoredEvent, ThreadEntry } from './documents';
import type { EventsPort } from './events-port';
import { copy } from './overlay-changes';
import type { OverlayContext } from './overlay-context';
import type { ThreadPort } from './thread-port';

export function overlayLogs(ctx: OverlayContext): EventsPort & ThreadPort {
  const { live, active, own, peek, lock, maxRecords, nextEventId, latestEventId } = ctx;
  return {
    async appendEvent(accountId, event) {
      const o = own(accountId);
      const id = nextEventId(accountId);
      const stored = copy({ id, ...event } as StoredEvent);
      o.events.push(stored);
      if (o.events.length > maxRecords) o.events.splice(0, o.events.length - maxRecords);
      return stored;
    },
    async eventsAfter(accountId, afterId, limit) {
      return (peek(accountId)?.events ?? []).filter((e) => e.id > afterId).slice(0, limit);
    },
    async eventBounds(accountId) {
      return { oldest: peek(accountId)?.events[0]?.id ?? null, latest: latestEventId(accountId) };
    },
    async pruneEvents(accountId, keepLast, olderThan) {
      const o = peek(accountId);
      if (!o) return 0;
      const before = o.events.length;
      // The newest is kept even when stale, as every store keeps it (the log's bounds go on).
      o.events = o.events.filter((e, i) => i === before - 1 || (i >= before - keepLast && e.at >= olderThan));
      return before - o.events.length;
    },

    async pruneEventsOlderThan(olderThan) {
      let dropped = 0;
      for (const o of active()) {
        const before = o.events.length;
        o.events = o.events.filter((e, i) => i === before - 1 || e.at >= olderThan);
        dropped += before - o.events.length;
      }
      return dropped;
    },
    appendThread(accountId, entry) {
      // Numbered after the live thread as it stands, so the entry sorts where it was said.
      return lock(`thread:${accountId}`, async () => {
        const [liveLast] = await live.readThread(accountId, { limit: 1 });
        const o = own(accountId);
        const id = Math.max(liveLast?.id ?? 0, o.thread.at(-1)?.id ?? 0) + 1;
        const stored = copy({ ...entry, id } as ThreadEntry);
        o.thread.push(stored);
        if (o.thread.length > maxRecords) o.thread.splice(0, o.thread.length - maxRecords);
        return stored;
      });
    },
    async pruneThread(accountId, keepLast) {
      // Only the overlay's own entries: the live thread is the live store's to prune.
      const o = peek(accountId);
      if (!o || o.thread.length <= keepLast) return 0;
      const cut = o.thread.length - Math.max(keepLast, 1);
      o.thread.splice(0, cut);
      return cut;
    },
    async readThread(accountId, { before, limit }) {
      const page = await live.readThread(accountId, { before, limit });
      const mine = (peek(accountId)?.thread ?? []).filter((e) => before === undefined || e.id < before);
      if (mine.length === 0) return page;
      // A live entry written later may share a number with one of ours: then time decides.
      const merged = [...page, ...mine].sort((a, b) => a.id - b.id || a.at - b.at);
      return merged.slice(Math.max(0, merged.length - limit));
    },
  };
}
