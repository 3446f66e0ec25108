// The memory family of the store port (store-port.ts). Memory entries are rows: a change names
// its keys, and only those rows are read and written, so its cost never depends on how many
// entries the account keeps.
import type { MemoryEntry } from './documents';

/** What a memory change decides from the entries it named: rows to write, keys to remove, and its answer. */
export type MemoryChange<T> = { put?: readonly MemoryEntry[]; remove?: readonly string[]; result: T };

/** The named entries of one account that exist, by key, and how many entries the account keeps. */
export type MemoryPeek = { found: ReadonlyMap<string, MemoryEntry>; count: number };

export interface MemoryPort {
  readMemory(accountId: string): Promise<MemoryEntry[]>;
  peekMemory(accountId: string, keys: readonly string[]): Promise<MemoryPeek>;
  /**
   * Runs `decide` on the named entries and the account's count and applies what it answers,
   * atomically: what it writes was decided under the locks the write needs. `decide` may run
   * more than once (it must have no effects of its own), and an answer that writes nothing may
   * come from a read taken without any lock (a concurrent change then counts as after it).
   * `likelyWrites`: the caller expects a write (a pin with a note it has not seen there), so a
   * store that would first read without locks, hoping to write nothing, goes straight to them.
   */
  changeMemory<T>(
    accountId: string,
    keys: readonly string[],
    decide: (current: MemoryPeek) => MemoryChange<T>,
    options?: { likelyWrites?: boolean },
  ): Promise<T>;
  /** Across accounts: the entries whose `due_at` is at or before `now` (what the compactor looks at), at most `limit`. */
  memoryDue(now: number, limit: number): Promise<{ account_id: string; key: string }[]>;
}
