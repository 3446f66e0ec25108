// Events: an append-only log per account (data/events/<account>.jsonl). The file is the
// record; an in-memory copy of what is retained serves replays. `next` is the id the next
// append takes, `latest` the newest committed one (what bounds report): after a failed write
// the two drift apart, so ids skip, they never repeat.
import { StoredEvent } from '../documents';
import type { EventsPort } from '../events-port';
import type { EventBounds } from '../store-port';
import type { Agenda } from './agenda';
import { firstIndexAfter } from './first-index-after';
import { accountLogs, type StoreContext } from './per-account';

export type EventsFamily = EventsPort & {
  close(): Promise<void>;
};

/**
 * The agenda keeps each account's oldest retained event time ('events'), so retention by age
 * opens only accounts with something old enough. That hint is written beside the first
 * append, not before it: a crash in between only delays pruning until the account's next append.
 */
export function openEvents(ctx: StoreContext, agenda: Agenda): EventsFamily {
  const eventLog = accountLogs(ctx, 'events', StoredEvent, async (file) => {
    const events = await file.readAll();
    const latest = events.at(-1)?.id ?? 0;
    return { file, events, next: latest + 1, latest };
  });
  const pruneEvents: EventsFamily['pruneEvents'] = (accountId, keepLast, olderThan) =>
    eventLog.use(accountId, async (log) => {
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
    });

  return {
    close: eventLog.close,
    appendEvent: (accountId, event) =>
      eventLog.use(accountId, async (log) => {
        // Taking the id and queueing the line happen together (synchronously), so lines land
        // in id order without holding a lock across the sync; concurrent appends share it.
        const stored: StoredEvent = { id: log.next, ...event };
        log.next += 1;
        if (!agenda.has('events', accountId)) void agenda.set('events', accountId, log.events[0]?.at ?? event.at).catch(() => undefined);
        await log.file.append([stored], () => {
          log.events.push(stored);
          log.latest = stored.id;
        });
        return stored;
      }),
    eventsAfter: (accountId, afterId, limit) =>
      eventLog.use(accountId, (log) => {
        const from = firstIndexAfter(log.events, afterId);
        return log.events.slice(from, from + limit);
      }),
    eventBounds: (accountId): Promise<EventBounds> =>
      eventLog.use(accountId, (log) => ({ oldest: log.events[0]?.id ?? null, latest: log.latest })),
    pruneEvents,
    async pruneEventsOlderThan(olderThan) {
      let dropped = 0;
      for (const accountId of agenda.due('events', olderThan)) {
        dropped += await pruneEvents(accountId, Number.MAX_SAFE_INTEGER, olderThan);
        await eventLog.use(accountId, async ({ events }) => {
          // Only the newest left, and stale (kept so ids never restart): nothing more to age out.
          const oldest = events.length > 1 || (events[0] && events[0].at >= olderThan) ? (events[0] as StoredEvent).at : null;
          await agenda.set('events', accountId, oldest);
        });
      }
      return dropped;
    },
  };
}
