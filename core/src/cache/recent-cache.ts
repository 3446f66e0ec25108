// A bounded map of values read recently, each trusted for `maxAgeMs` and dropped by change
// notices: the one LRU+TTL shape behind the key cache (keys/key-cache.ts) and the account
// view cache (presence/account-view-cache.ts). The least recently stored entry goes first
// (reads do not refresh it: an entry's age, not its popularity, decides when it is read again).
//
// A read that started before a change must not be kept: `mark()` before the read and
// `keep(key, value, mark)` after it stores the value only if nothing was dropped meanwhile
// (every `changed` or `clear` moves the mark on), so a lookup overtaken by a change is used
// for its own request but not remembered.
//
// Written here rather than taken from lru-cache: both callers need the overtaken-read mark
// and an eviction callback, and lru-cache reads the clock through a timer of its own
// (`ttlResolution`) and refreshes recency on reads, which would change when entries leave.

/** Change notices, as the cluster port announces them (keys, accounts, surface links). */
export type ChangeNotices = { subscribe(handlers: { changed(id: string): void; resync(): void }): () => void };

/**
 * The embedded store's notices: none. One process holds its data directory, so every change
 * is made by this server, which drops what it changed itself.
 */
export const NO_NOTICES: ChangeNotices = { subscribe: () => () => undefined };

/** What a cache dropped by change notices is made from (keys/key-cache.ts, presence/account-view-cache.ts). */
export type NoticedCacheOptions = {
  changes: ChangeNotices;
  now: () => number;
  /** Entries kept at most. */
  max?: number;
  /** An entry this old is read again. */
  maxAgeMs?: number;
};

export type RecentCache<K, V> = {
  /** The value kept for `key` if it is younger than `maxAgeMs`. */
  fresh(key: K): V | undefined;
  /** A mark to pass to `keep` after a read that began now. */
  mark(): number;
  /** Forgets `key`'s entry; stores `value` as the newest unless a drop came since `mark`. True when stored. */
  keep(key: K, value: V, mark: number): boolean;
  /** Forgets `key`'s entry (no drop: reads under way may still keep theirs). */
  forget(key: K): void;
  /** These keys changed: forgets them, and reads under way keep nothing. */
  changed(keys: Iterable<K>): void;
  /** Everything may have changed: forgets all, and reads under way keep nothing. */
  clear(): void;
  readonly size: number;
};

export function createRecentCache<K, V>({
  now,
  max,
  maxAgeMs,
  onForget,
}: {
  now: () => number;
  max: number;
  maxAgeMs: number;
  /** Told of each entry forgotten one by one (not by `clear`), for an index the caller keeps beside. */
  onForget?: (key: K, value: V) => void;
}): RecentCache<K, V> {
  const entries = new Map<K, { value: V; at: number }>();
  let generation = 0;

  const forget = (key: K) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    onForget?.(key, e.value);
  };

  return {
    fresh(key) {
      const e = entries.get(key);
      return e && now() - e.at < maxAgeMs ? e.value : undefined;
    },
    mark: () => generation,
    keep(key, value, mark) {
      forget(key);
      if (generation !== mark) return false;
      if (entries.size >= max) {
        const oldest = entries.keys().next();
        if (!oldest.done) forget(oldest.value);
      }
      entries.set(key, { value, at: now() });
      return true;
    },
    forget,
    changed(keys) {
      generation++;
      for (const k of [...keys]) forget(k);
    },
    clear() {
      generation++;
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
