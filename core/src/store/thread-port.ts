// The thread family of the store port (store-port.ts): each account's conversation, numbered.
import type { NewThreadEntry, ThreadEntry } from './documents';

export interface ThreadPort {
  /** Appends with the next per-account thread id. */
  appendThread(accountId: string, entry: NewThreadEntry): Promise<ThreadEntry>;
  /** Newest last: up to `limit` entries with id < `before` (or the newest when absent). */
  readThread(accountId: string, opts: { before?: number; limit: number }): Promise<ThreadEntry[]>;
  /** Drops all but the newest `keepLast` entries (at least one stays, so ids go on); answers how many went. */
  pruneThread(accountId: string, keepLast: number): Promise<number>;
}
