// The accounts of one record family held in memory: an account's document or log view is read
// at its first use and kept for the next, but only for the `max` most recently used accounts.
// Past that the least recently used one that is idle is dropped (a log gives its file back)
// and read again from disk at its next use, so memory follows the accounts in use, not every
// account touched since the start (DESIGN.md, "Cost follows work").
//
// Dropping must never lose a write. A value is only ever reached through `use`, which holds a
// lease on it until the caller's function settles: a leased value is never dropped, so no
// caller can write through a copy that another, reopened from disk, has already moved past.
// A value with work of its own still under way (a document write, a queued append or rewrite:
// `idle` says) is not dropped either. Nothing outside a family holds its values (the lookups,
// the agenda and the event pumps keep account ids), so every family can be bounded.

type Entry<T> = { value: Promise<T>; loaded: { value: T } | null; leases: number };

export type AccountCache<T> = {
  /** Runs `fn` with the account's value, which stays in memory at least until `fn` settles. */
  use<R>(accountId: string, fn: (value: T) => R | Promise<R>): Promise<R>;
  /** How many accounts' values are in memory (being read, in use or idle). */
  resident(): number;
  /** Every value in memory now. */
  values(): Promise<T>[];
  /** Resolves once every value dropped so far has given back what it held. */
  settled(): Promise<void>;
};

export type AccountCacheOptions<T> = {
  /** How many accounts' values stay in memory when idle. */
  max: number;
  /** Reads the account's value from disk. */
  open(accountId: string): Promise<T>;
  /** Nothing of the value's own is under way: dropping it now loses nothing. */
  idle(value: T): boolean;
  /** Gives back what a dropped value holds (a log's open file); runs once it left the cache. */
  release?(value: T): Promise<void>;
};

export function createAccountCache<T>({ max, open, idle, release }: AccountCacheOptions<T>): AccountCache<T> {
  // A Map iterates in insertion order: moving an entry to the end on use keeps the least
  // recently used first.
  const entries = new Map<string, Entry<T>>();
  const releasing = new Set<Promise<void>>();

  const drop = (accountId: string, value: T) => {
    entries.delete(accountId);
    if (!release) return;
    // Its writes were answered before it went idle, so a failed release loses nothing.
    const done: Promise<void> = release(value)
      .catch(() => undefined)
      .finally(() => releasing.delete(done));
    releasing.add(done);
  };

  /** Drops the least recently used idle values past `max`; busy ones stay until a later use. */
  const trim = () => {
    if (entries.size <= max) return;
    for (const [accountId, e] of entries) {
      if (entries.size <= max) break;
      if (e.leases === 0 && e.loaded && idle(e.loaded.value)) drop(accountId, e.loaded.value);
    }
  };

  const entryOf = (accountId: string): Entry<T> => {
    const found = entries.get(accountId);
    if (found) {
      entries.delete(accountId);
      entries.set(accountId, found);
      return found;
    }
    const e: Entry<T> = { value: open(accountId), loaded: null, leases: 0 };
    entries.set(accountId, e);
    e.value.then(
      (value) => {
        e.loaded = { value };
      },
      // A failed read keeps nothing: the next use reads the disk again.
      () => {
        if (entries.get(accountId) === e) entries.delete(accountId);
      },
    );
    return e;
  };

  return {
    use<R>(accountId: string, fn: (value: T) => R | Promise<R>): Promise<R> {
      let e: Entry<T>;
      try {
        e = entryOf(accountId);
      } catch (err) {
        return Promise.reject(err); // an id no file may be named after: a rejection, as from any store call
      }
      e.leases += 1;
      trim();
      const done = () => {
        e.leases -= 1;
        trim();
      };
      const { loaded } = e;
      // An account in memory is handed over in the same turn (the executor runs at once), as
      // a cached promise was before: a mutation is queued behind the writes already queued.
      const run = loaded ? new Promise<R>((resolve) => resolve(fn(loaded.value))) : e.value.then(fn);
      return run.then(
        (r) => {
          done();
          return r;
        },
        (err: unknown) => {
          done();
          throw err;
        },
      );
    },
    resident: () => entries.size,
    values: () => [...entries.values()].map((e) => e.value),
    async settled() {
      while (releasing.size > 0) await Promise.all(releasing);
    },
  };
}
