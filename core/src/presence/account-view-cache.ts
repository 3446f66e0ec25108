// What GET /v1/presence/me shows of an account (its document and memory counts), kept in
// memory, so that read costs the database nothing when the account is read often (DESIGN.md
// "Cost follows work": an authenticated read commits nothing), and is answered without a
// promise (`known`). The embedded store answers from memory already, but through a chain of
// promises and a copy of the account's memory entries on every read; it keeps the cache too,
// with no notices (NO_NOTICES: its own drops are every change there is).
//
// Staleness, as for keys (keys/key-cache.ts): every change to an account's document or memory
// counts is announced at its commit (NOTIFY, store/postgres) and drops the account here; this
// server's own changes drop it once committed (`withViewDrops` below), before their request
// is answered. A listening connection that came back forgets everything, and an entry is read
// again once MAX_AGE_MS old, so even a notification lost unnoticed leaves at most a second.
// A read that started before a drop of its account is used for its own request but not kept.
import { createRecentCache, type NoticedCacheOptions } from '../cache/recent-cache';
import type { StorePort } from '../store/store-port';
import { withOps } from '../store/with-ops';

/** Accounts kept at most; the least recently stored go first. */
export const VIEW_CACHE_MAX = 10_000;
/** An entry this old is read again (see the header). */
export const VIEW_CACHE_MAX_AGE_MS = 1_000;

export type AccountViewCache<V> = {
  /** The account's view if memory holds it and it is fresh; undefined: ask `get`. */
  known(accountId: string): V | undefined;
  /** The account's view, from memory or `load` (kept unless the account changed meanwhile). */
  get(accountId: string, load: () => Promise<V>): Promise<V>;
  drop(accountId: string): void;
  close(): void;
};

export function createAccountViewCache<V>({
  changes,
  now,
  max = VIEW_CACHE_MAX,
  maxAgeMs = VIEW_CACHE_MAX_AGE_MS,
}: NoticedCacheOptions): AccountViewCache<V> {
  const views = createRecentCache<string, V>({ now, max, maxAgeMs });
  /** Loads under way, with the mark they began at. */
  const loading = new Map<string, { generation: number; view: Promise<V> }>();

  const drop = (accountId: string) => views.changed([accountId]);
  const unsubscribe = changes.subscribe({ changed: drop, resync: () => views.clear() });

  return {
    known: (accountId) => views.fresh(accountId),
    async get(accountId, load) {
      const hit = views.fresh(accountId);
      if (hit !== undefined) return hit;
      // Reads of one account while its load is under way share it (one statement, not one
      // per request), unless a drop came since it began.
      const under = loading.get(accountId);
      if (under && under.generation === views.mark()) return under.view;
      const seen = views.mark();
      const pending = load();
      loading.set(accountId, { generation: seen, view: pending });
      let view: V;
      try {
        view = await pending;
      } finally {
        if (loading.get(accountId)?.view === pending) loading.delete(accountId);
      }
      views.keep(accountId, view, seen);
      return view;
    },
    drop,
    close: unsubscribe,
  };
}

/**
 * The store with this server's own account changes dropping the cached view once committed
 * (at once for a change made on the store itself, at its unit's commit for one made in a unit
 * of work), so a change is seen by the next read here without waiting for its notification.
 */
export function withViewDrops<S extends StorePort>(store: S, drop: (accountId: string) => void): S {
  return withOps(store, (ops, afterCommit) => ({
    async updateAccount(id, update) {
      const next = await ops.updateAccount(id, update);
      afterCommit(() => drop(id));
      return next;
    },
    async changeMemory(accountId, keys, decide, options) {
      const out = await ops.changeMemory(accountId, keys, decide, options);
      afterCommit(() => drop(accountId));
      return out;
    },
  }));
}
