// The shapes the events log shares with its channels, pumps and subscriptions: where events
// are kept, an event as a stream carries it, and what a subscription yields.
import type { EventType } from '@presence/protocol';
import type { StorePort } from '../store/store-port';

/** Where events are kept: the live store for live keys, the overlay for test keys (create-core). */
export type EventStore = Pick<
  StorePort,
  'atomically' | 'appendEvent' | 'eventsAfter' | 'eventBounds' | 'pruneEvents' | 'pruneEventsOlderThan'
>;

/** An event as a stream carries it. */
export type FeedEvent = { id: number; type: EventType; data: Record<string, unknown> };

export type FeedItem =
  | { kind: 'event'; event: FeedEvent }
  | { kind: 'gap'; oldest_id: number }
  /**
   * Where the stream stands: a live-only stream's start, so a client that drops before any
   * event can resume; or, asked to resume after an id the log never reached, its newest id,
   * which the client takes as its cursor even though it is lower.
   */
  | { kind: 'cursor'; id: number };

export type Subscription = AsyncIterable<FeedItem> & {
  close(): void;
  /** Why the iterator ended: closed by us, or overflowed because the consumer fell behind. */
  readonly endReason: 'open' | 'closed' | 'overflow';
};
