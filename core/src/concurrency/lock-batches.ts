// Work on one lock name, taken a batch at a time: whatever arrives while a batch holds the
// lock waits together and runs as the next batch, under one hold of the (cluster) lock. For a
// critical section whose cost is mostly one durable write per item (the spend gate: read
// today's spend, decide, store the intent), a batch reads once and lets its writes commit
// together instead of one after another.
import type { ClusterLocks } from './cluster-locks';

/** One item of a batch; the batch's runner settles each, once. */
export type BatchEntry<T, R> = { item: T; resolve: (result: R) => void; reject: (e: unknown) => void };

export function createLockBatches<T, R>(locks: ClusterLocks, run: (batch: BatchEntry<T, R>[]) => Promise<void>) {
  /** The batch still taking items, by lock name (its turn at the lock is already queued). */
  const open = new Map<string, BatchEntry<T, R>[]>();
  return (name: string, item: T): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const entry = { item, resolve, reject };
      const joining = open.get(name);
      if (joining) {
        joining.push(entry);
        return;
      }
      const batch = [entry];
      open.set(name, batch);
      locks
        .withLock(name, async () => {
          // Sealed: from here on, arrivals form the next batch.
          if (open.get(name) === batch) open.delete(name);
          await run(batch);
        })
        // A runner that fails outright fails the entries it left unsettled (settling twice is a no-op).
        .catch((e: unknown) => {
          if (open.get(name) === batch) open.delete(name);
          for (const b of batch) b.reject(e);
        });
    });
}
