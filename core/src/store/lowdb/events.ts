// Events: an append-only log per account (data/events/<account>.jsonl). The file is the
// record; an in-memory copy of what is retained serves replays. `next` is the id the next
// append takes, `latest` the newest committed one (what bounds report): after a failed write
// the two drift apart, so ids skip, they never repeat.
import { StoredEvent } from '../documents';
import type { EventBounds, StorePort } from '../store-port';
import { firstIndexAfter } from './first-index-after';
import { accountLogs, type StoreContext } from './per-account';

export type EventsFamily = Pick<StorePort, 'appendEvent' | 'eventsAfter' | 'eventBounds' | 'pruneEvents'> & { close(): Promise<void> };

export function openEvents(ctx: StoreContext): EventsFamily {
  const eventLog = accountLogs(ctx, 'events', StoredEvent, async (file) => {
    const events = await file.readAll();
    const latest = events.at(-1)?.id ?? 0;
    return { file, events, next: latest + 1, latest };
  });
  return {
    close: eventLog.close,
    async appendEvent(accountId, event) {
      const log = await eventLog(accountId);
      // Taking the id and queueing the line happen together (synchronously), so lines land
      // in id order without holding a lock across the sync; concurrent appends share it.
      const stored: StoredEvent = { id: log.next, ...event };
      log.next += 1;
      await log.file.append([stored], () => {
        log.events.push(stored);
        log.latest = stored.id;
      });
      return stored;
    },
    async eventsAfter(accountId, afterId, limit) {
      const log = await eventLog(accountId);
      const from = firstIndexAfter(log.events, afterId);
      return log.events.slice(from, from + limit);
    },
    async eventBounds(accountId): Promise<EventBounds> {
      const log = await eventLog(accountId);
      return { oldest: log.events[0]?.id ?? null, latest: log.latest };
    },
    async pruneEvents(accountId, keepLast, olderThan) {
      const log = await eventLog(accountId);
      let cut = 0;
      // Decided inside the log's rewrite: every earlier append is committed by then and
      // later ones go to the new file, so pruning never drops an event being appended.
      await log.file.rewrite(
        () => {
          cut = Math.max(0, log.events.length - keepLast);
          while (cut < log.events.length && (log.events[cut] as StoredEvent).at < olderThan) cut++;
          // Keep the newest event on disk even when all are stale, so ids never restart at 1.
          cut = Math.min(cut, log.events.length - 1);
          return cut > 0 ? log.events.slice(cut) : null;
        },
        (kept) => {
          log.events = [...kept];
        },
      );
      return Math.max(cut, 0);
    },
  };
}
