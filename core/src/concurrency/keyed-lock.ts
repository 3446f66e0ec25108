// Serializes async work per key (one document, one account's log, one wallet's nonces, one
// account's turns) without blocking other keys.
export type KeyedLock = {
  <T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Resolves when everything queued so far has finished. */
  drain(): Promise<void>;
};

export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  const lock = <T>(key: string, work: () => Promise<T>) => {
    const prev = tails.get(key) ?? Promise.resolve();
    const run = prev.then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
  lock.drain = async () => {
    while (tails.size > 0) await Promise.all(tails.values());
  };
  return lock;
}
