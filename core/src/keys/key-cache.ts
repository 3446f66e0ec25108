// Keys by secret hash, kept in memory so an authenticated request does not read the store
// for its key (on PostgreSQL that read was a transaction per request; on the embedded store
// it is no round trip, but a chain of promises on every request's path, and a key kept here
// is answered without one: `known`). Only found keys are kept, never misses: a key created
// anywhere is found at its first use.
//
// On the embedded store the key service is the only writer of keys (one process holds the
// data directory), so its own drops are every change there is and no notice ever comes.
//
// Staleness across servers: every change to a key's record is announced at its commit
// (PostgreSQL NOTIFY, see store/postgres/keys-rows.ts updateKey) and drops the key here;
// this server's own changes drop it at once. So a revocation or rotation on another server
// takes effect here as soon as its notification arrives — the same moment its events reach
// this server's streams. If the listening connection drops, the driver reconnects it and every
// key is forgotten (`resync`), since notifications sent meanwhile are lost. Against a
// connection that dies without the driver noticing, an entry is also read again once it is
// MAX_AGE_MS old: that bounds the window to about a second even then, at one read per key per
// second, not per request.
//
// A lookup that started before a drop may return after it with the old record: it is used
// for its own request (it was true when read) but not kept.

import { createRecentCache, type NoticedCacheOptions } from '../cache/recent-cache';
import type { KeyRecord } from '../store/documents';

/** Keys kept at most; the least recently stored go first. */
export const KEY_CACHE_MAX = 10_000;
/** An entry this old is read again (see the header). */
export const KEY_CACHE_MAX_AGE_MS = 1_000;

export type KeyCache = {
  /** The key with this secret hash if memory holds it and it is fresh; undefined: ask `find`. */
  known(hash: string): KeyRecord | undefined;
  /** The key with this secret hash, from memory or `load` (kept when found). */
  find(hash: string, load: () => Promise<KeyRecord | null>): Promise<KeyRecord | null>;
  /** Drop a key this server changed (before its change is answered). */
  drop(keyId: string): void;
  /** Stop listening. */
  close(): void;
};

export function createKeyCache({ changes, now, max = KEY_CACHE_MAX, maxAgeMs = KEY_CACHE_MAX_AGE_MS }: NoticedCacheOptions): KeyCache {
  /** Secret hash → key: the key's id indexes its hashes, so a change to the key drops them all. */
  const hashesOf = new Map<string, Set<string>>();
  const byHash = createRecentCache<string, KeyRecord>({
    now,
    max,
    maxAgeMs,
    onForget(hash, key) {
      const hs = hashesOf.get(key.id);
      hs?.delete(hash);
      if (hs?.size === 0) hashesOf.delete(key.id);
    },
  });
  const drop = (keyId: string) => byHash.changed(hashesOf.get(keyId) ?? []);
  const unsubscribe = changes.subscribe({
    changed: drop,
    resync() {
      byHash.clear();
      hashesOf.clear();
    },
  });

  return {
    known: (hash) => byHash.fresh(hash),
    async find(hash, load) {
      const hit = byHash.fresh(hash);
      if (hit) return hit;
      const seen = byHash.mark();
      const key = await load();
      if (!key) byHash.forget(hash);
      else if (byHash.keep(hash, key, seen)) {
        const hs = hashesOf.get(key.id) ?? new Set<string>();
        hs.add(hash);
        hashesOf.set(key.id, hs);
      }
      return key;
    },
    drop,
    close: unsubscribe,
  };
}
