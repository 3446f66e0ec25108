// The events family of the store port (store-port.ts): each account's log, numbered 1, 2, 3….
import type { StoredEvent } from './documents';

export type EventBounds = { oldest: number | null; latest: number };

export interface EventsPort {
  /** Appends with the next per-account id (1, 2, 3…); the id is assigned under the log's lock. */
  appendEvent(accountId: string, event: Omit<StoredEvent, 'id'>): Promise<StoredEvent>;
  eventsAfter(accountId: string, afterId: number, limit: number): Promise<StoredEvent[]>;
  eventBounds(accountId: string): Promise<EventBounds>;
  /** Drops events beyond the newest `keepLast` or older than `olderThan` (ms epoch). */
  pruneEvents(accountId: string, keepLast: number, olderThan: number): Promise<number>;
  /** Across accounts, set-based: drops events older than `olderThan` (an account may keep its newest). */
  pruneEventsOlderThan(olderThan: number): Promise<number>;
}
