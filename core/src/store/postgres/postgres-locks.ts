// The cluster lock port on PostgreSQL: `pg_advisory_xact_lock(hashtextextended(name, 0))`
// inside a transaction held for the whole of `work`, so the lock spans every server on the
// database and is released when the work ends, fails, or its server dies (the connection
// drops and PostgreSQL ends the transaction).
//
// The locks have a small pool of their own: a holder's work uses the store's connections,
// so waiters queued here can never starve the holder of one (with one shared pool, ten
// waiters each holding a connection would deadlock the holder that needs an eleventh).
// Waiters of one name in this process queue in memory first, so they take no connection
// while they wait.
import postgres from 'postgres';
import type { ClusterLocks } from '../../concurrency/cluster-locks';
import { createKeyedLock } from '../../concurrency/keyed-lock';
import { toStoreError } from './database-error';

export type PostgresLocksOptions = { url: string /** Lock connections (default 4). */; max?: number };

export function createPostgresLocks({ url, max = 4 }: PostgresLocksOptions): ClusterLocks {
  const sql = postgres(url, { max, onnotice: () => undefined, connect_timeout: 10 });
  const local = createKeyedLock();
  return {
    withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
      return local(name, async () => {
        let began = false;
        try {
          return (
            await sql.begin(async (tx) => {
              await tx`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
              began = true;
              return [await work()];
            })
          )[0] as T;
        } catch (e) {
          // The work's own failure passes through; failing to take the lock is the store's.
          if (began) throw e;
          throw toStoreError(e, `lock ${name}`);
        }
      });
    },
    async close() {
      await local.drain();
      await sql.end({ timeout: 5 });
    },
  };
}
