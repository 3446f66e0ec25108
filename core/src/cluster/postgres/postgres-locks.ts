// The cluster lock port on PostgreSQL: `pg_advisory_xact_lock(hashtextextended(name, 0))`
// inside a transaction held for the whole of the work, so the lock spans every server on the
// database and is released when the work ends, fails, or its server dies (the connection
// drops and PostgreSQL ends the transaction).
//
// Holders of one name in this process queue in memory, and the server's transaction hands
// the lock from one to the next without letting go (at most `handoffs` in a row, so holders
// on other servers, queued in PostgreSQL behind it, get their turn). A busy wallet then
// pays BEGIN, the lock and COMMIT once per run of holders (and a `SELECT 1` per handoff, to
// know the hold is still alive) instead of once each: the nonce lock is every intent's
// critical section, and these round trips were a third of it.
//
// The locks share the server's pool, but hold at most `max` of its connections at once: a
// holder's work needs connections of its own from the same pool, and ten waiters each holding
// one would deadlock the holder that needs an eleventh. Names beyond `max` wait here, in
// memory, for a lock connection to come free (the pool must be larger than `max`: see
// lockConnections).
import type { ClusterLocks } from '../../concurrency/cluster-locks';
import { type DatabaseSource, useDatabase } from '../../store/postgres/database';
import { toStoreError } from '../../store/postgres/database-error';

/** The pool's connections the locks may hold at once: up to 4, and never all but two of it. */
export const lockConnections = (pool: number) => Math.max(1, Math.min(4, pool - 2));

export type PostgresLocksOptions = DatabaseSource & {
  /** Connections the locks may hold at once (default 4). */
  max?: number;
  /** Holders of one name that may run in a row under one hold of the lock (default 8). */
  handoffs?: number;
};

/**
 * A queued holder. Its work is not run by the server of the queue: the holder's own call waits
 * for `go` and runs it, so the work keeps its caller's async context (never the context of the
 * holder that started the queue, which may be inside a request's unit of work) and its outcome
 * goes straight to its caller. The queue learns only that it `finished`.
 */
type Holder = { go: (start: { ok: true } | { ok: false; error: unknown }) => void; finished: Promise<void> };

export function createPostgresLocks({ max = 4, handoffs = 8, ...source }: PostgresLocksOptions): ClusterLocks {
  const pool = useDatabase(source, max);
  const sql = pool.sql;
  const queues = new Map<string, Holder[]>();
  const running = new Set<Promise<void>>();
  // A counting semaphore over the lock connections: names wait their turn in arrival order.
  let free = max;
  const waiting: (() => void)[] = [];
  const acquire = (): Promise<void> => {
    if (free === 0) return new Promise<void>((r) => waiting.push(r));
    free--;
    return Promise.resolve();
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };

  /** Runs the queued holders of `name`, a run of up to `handoffs` per hold, until none is left. */
  async function serve(name: string, queue: Holder[]) {
    await acquire();
    try {
      await serveHolding(name, queue);
    } finally {
      release();
    }
  }

  async function serveHolding(name: string, queue: Holder[]) {
    while (queue.length > 0) {
      let locked = false;
      try {
        await sql.begin(async (tx) => {
          await tx`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
          locked = true;
          for (let n = 0; n < handoffs && queue.length > 0; n++) {
            // Still ours? A session ended under the last holder (a dropped connection, an
            // idle-in-transaction timeout) took the lock with it: the next holder must not run
            // believing it holds it. The query fails, and the holder waits for a fresh hold.
            if (n > 0) await tx`SELECT 1`;
            const holder = queue[0] as Holder;
            // The work's own failure is its caller's; the lock and the run go on.
            holder.go({ ok: true });
            await holder.finished;
            queue.shift();
          }
        });
      } catch (e) {
        // Failing to take the lock fails the holder at the head (the next one tries afresh).
        // After it was taken, a failure (the hold found dead between holders, a failed COMMIT
        // of a transaction that wrote nothing) loses nothing: the holders still queued get a
        // fresh hold.
        if (!locked) queue.shift()?.go({ ok: false, error: toStoreError(e, `lock ${name}`) });
      }
    }
    // In the same turn as the last check of the queue: a holder arriving after this starts a new one.
    queues.delete(name);
  }

  return {
    async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
      let go!: Holder['go'];
      const turn = new Promise<Parameters<Holder['go']>[0]>((r) => {
        go = r;
      });
      let finish!: () => void;
      const finished = new Promise<void>((r) => {
        finish = r;
      });
      const holder: Holder = { go, finished };
      const queue = queues.get(name);
      if (queue) queue.push(holder);
      else {
        const fresh = [holder];
        queues.set(name, fresh);
        const run = serve(name, fresh);
        running.add(run);
        // serve() settles every holder it takes, and never rejects: nothing to catch here.
        void run.finally(() => running.delete(run));
      }
      const start = await turn;
      if (!start.ok) throw start.error;
      try {
        return await work();
      } finally {
        finish();
      }
    },
    async close() {
      while (running.size > 0) await Promise.all(running);
      await pool.end();
    },
  };
}
