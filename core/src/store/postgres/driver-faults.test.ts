// The PostgreSQL driver as this project ships it (postgres 3.4.9 with
// patches/postgres+3.4.9.patch), when a backend is terminated under it: every query settles,
// none fails for an error that was not its own, no failure escapes as an unhandled rejection,
// and the pool keeps all its connections. Each case failed on the unpatched driver (the
// upstream issue is named beside it); a server under database faults met every one of them
// (test/src/postgres-faults.test.ts).
import net from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../../../scripts/postgres';
import { openDatabase } from './database';

let pg: ThrowawayPostgres;
let admin: postgres.Sql;
beforeAll(async () => {
  pg = await startPostgres();
  admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await admin?.end();
  await pg?.stop();
});

/** `p`, or a rejection once it has not settled in `ms`: a query that waits for good fails the test instead of hanging it. */
function within<T>(p: Promise<T>, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const terminate = (pid: number) => admin`SELECT pg_terminate_backend(${pid})`;

/** Until the backend `pid` is running a statement (asked on the admin connection). */
async function running(pid: number) {
  for (;;) {
    const [row] = await admin<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${pid} AND state = 'active'`;
    if (row?.n === 1) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the driver, when a backend is terminated under it', () => {
  it('fails the statement it was running, and the next statement in that slot runs (porsager/postgres#1223)', async () => {
    const sql = openDatabase(pg.url, { max: 1 });
    try {
      const [row] = await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      const pid = row?.pid as number;
      const sleeping = sql`SELECT pg_sleep(30)`;
      sleeping.catch(() => undefined);
      await running(pid);
      await terminate(pid);
      await expect(within(sleeping)).rejects.toHaveProperty('code');
      // Unpatched, the terminated backend's 57P01 was kept and failed this one too.
      expect(await within(sql<{ n: number }[]>`SELECT ${1}::int AS n`)).toEqual([{ n: 1 }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('fails every later statement of a reservation at once, and gives the connection back to the pool (porsager/postgres#1186)', async () => {
    const sql = openDatabase(pg.url, { max: 2 });
    try {
      const reserved = await sql.reserve();
      const [row] = await reserved<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      await terminate(row?.pid as number);
      // Statements with parameters: unpatched, the first moved the dead connection out of the
      // pool's reach and the second waited behind it for good.
      await expect(within(reserved`SELECT ${1}::int`)).rejects.toHaveProperty('code');
      await expect(within(reserved`SELECT ${2}::int`)).rejects.toHaveProperty('code', 'CONNECTION_CLOSED');
      reserved.release();
      // Both connections serve again: two reservations at once.
      const both = await within(Promise.all([sql.reserve(), sql.reserve()]));
      for (const r of both) {
        expect(await within(r<{ n: number }[]>`SELECT ${3}::int AS n`)).toEqual([{ n: 3 }]);
        r.release();
      }
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('hands a reservation that was waiting for the connection the reconnected one (porsager/postgres#1195)', async () => {
    const sql = openDatabase(pg.url, { max: 1 });
    try {
      const first = await sql.reserve();
      const [row] = await first<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      // Waits: the pool's one connection is reserved.
      const second = sql.reserve();
      await new Promise((r) => setImmediate(r));
      await terminate(row?.pid as number);
      // Unpatched, the reconnection dropped the waiting reservation: it never settled.
      const got = await within(second);
      expect(await within(got<{ n: number }[]>`SELECT ${4}::int AS n`)).toEqual([{ n: 4 }]);
      got.release();
      first.release();
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('fails what a transaction sends after its backend was terminated, and the pool serves again (porsager/postgres#1186)', async () => {
    const sql = openDatabase(pg.url, { max: 1 });
    try {
      let afterwards!: Promise<unknown>;
      const tx = sql.begin(async (t) => {
        const [row] = await t<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        await terminate(row?.pid as number);
        // The first statement meets the termination (as its answer, or as the closed socket)…
        await t`SELECT ${1}::int`.catch(() => undefined);
        // …and one sent once the driver knows: unpatched, it took the dead connection out of the pool's reach.
        afterwards = within(t`SELECT ${2}::int`).catch((e: unknown) => e);
        return afterwards;
      });
      await expect(within(tx)).rejects.toHaveProperty('code');
      await expect(afterwards).resolves.toHaveProperty('code', 'CONNECTION_CLOSED');
      // Unpatched, this waited for good: the pool's one connection was nowhere it takes one from.
      expect(await within(sql<{ n: number }[]>`SELECT ${5}::int AS n`)).toEqual([{ n: 5 }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('fails a statement pipelined onto a connection between its socket error and its close, and the next connection does not wait for its answer', async () => {
    // A reset socket reports its error at once and its close a turn later; meanwhile the pool
    // still counts the connection busy and pipelines onto it. Unpatched, what it sent there was
    // never failed: it stayed in the connection's queue, the reconnected connection took it as
    // the statement it was waiting on (never sent on that socket), and both waited for good.
    // Servers under connection cuts met this (a request that never answered).
    const { hostname, port } = new URL(pg.url);
    const sockets: net.Socket[] = [];
    // `socket` (the driver opens its connections through it) is an option its types leave out.
    const options = {
      max: 1,
      onnotice: () => undefined,
      socket: () => {
        const s = net.connect(Number(port), hostname);
        sockets.push(s);
        return s;
      },
    };
    const sql = postgres(pg.url, options as postgres.Options<Record<string, never>>);
    try {
      await sql`SELECT 1`;
      const sleeping = sql`SELECT pg_sleep(30)`.catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 50));
      sockets.at(-1)?.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
      // After the error is emitted (next tick), before the close (the handle's close callback).
      await new Promise((r) => setImmediate(r));
      const pipelined = within(sql`SELECT ${6}::int AS n`).catch((e: unknown) => e);
      await expect(sleeping).resolves.toHaveProperty('code', 'ECONNRESET');
      await expect(pipelined).resolves.toHaveProperty('code', 'CONNECTION_CLOSED');
      // The pool's one connection opens again and answers what it is sent, not an old statement.
      expect(await within(sql<{ n: number }[]>`SELECT ${7}::int AS n`)).toEqual([{ n: 7 }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('lets no failure of the types query on a new connection escape as an unhandled rejection (porsager/postgres#1192)', async () => {
    const escaped: unknown[] = [];
    const onRejection = (e: unknown) => escaped.push(e);
    process.on('unhandledRejection', onRejection);
    // A 1 ms statement timeout from the first statement on: the driver's own catalog query,
    // which every new connection sends first, is cancelled.
    const sql = postgres(pg.url, { max: 1, onnotice: () => undefined, connection: { statement_timeout: 1 } });
    try {
      await sql`SELECT 1`.catch(() => undefined);
      // A rejection is reported as unhandled after the microtasks of its turn: give it turns.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      expect(escaped).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      await sql.end({ timeout: 1 });
    }
  });
});
