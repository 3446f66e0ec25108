// The events stream as one key may see it (GET /v1/events): each type only for keys holding
// its scope (protocol's eventScope), and a `message` whose text drew on scopes the key lacks
// with that text redacted (scope-redaction.ts), exactly as GET /v1/messages shows it. Ids are
// untouched, so a filtered-out event still moves the resume point on. The transport only
// writes what this yields.
import { type EventType, eventScope, type Scope } from '@presence/protocol';
import type { EventsLog, FeedItem, Subscription } from '../events/events-log';
import type { Caller } from '../keys/caller';
import { redactEventData } from './scope-redaction';

/** The key reading the stream: whose events, and which scopes it holds. */
export type EventsViewer = Caller & { scopes: readonly Scope[] };

/** `afterId` undefined: live only; a number: replay everything after it, then live. */
export function subscribeVisibleEvents(
  events: Pick<EventsLog, 'subscribe'>,
  viewer: EventsViewer,
  afterId: number | undefined,
): Subscription {
  const sub = events.subscribe(viewer, afterId, (t: EventType) => viewer.scopes.includes(eventScope[t]));
  async function* redacted(): AsyncGenerator<FeedItem> {
    for await (const item of sub) {
      if (item.kind !== 'event') yield item;
      else yield { kind: 'event', event: { ...item.event, data: redactEventData(item.event.type, item.event.data, viewer.scopes) } };
    }
  }
  const it = redacted();
  return {
    [Symbol.asyncIterator]: () => it,
    close: () => sub.close(),
    get endReason() {
      return sub.endReason;
    },
  };
}
