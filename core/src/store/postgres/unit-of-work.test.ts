// One commit per write (DESIGN.md, "Cost follows work"): a pin's entry and its event commit in
// one transaction on PostgreSQL, and a failure inside the unit leaves neither. Write
// transactions are counted by the cluster's transaction id counter (txid_current() assigns
// one to the counting transaction itself), which advances for every transaction that wrote
// anything and for nothing else; the throwaway cluster serves only this file.

import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../../../scripts/postgres';
import { createManualClock } from '../../clock/clock';
import { createPostgresCluster, type PostgresCluster } from '../../cluster/postgres/cluster';
import { createPostgresLocks } from '../../cluster/postgres/postgres-locks';
import { createCore } from '../../create-core';
import { createKeystore } from '../../keystore/keystore';
import type { SharedStore, StoreTx } from '../store-port';
import { openDatabase } from './database';
import { createPostgresStore } from './postgres-store';
import { unitOfWorkOn } from './unit-of-work';

let pg: ThrowawayPostgres;
let store: SharedStore;
let cluster: PostgresCluster;
let pool: postgres.Sql;
let probe: postgres.Sql;
beforeAll(async () => {
  pg = await startPostgres();
  // As a server wires them: the store and the cluster port on one pool.
  pool = openDatabase(pg.url, { max: 6 });
  store = await createPostgresStore({ sql: pool, keystore: createKeystore(randomBytes(32)) });
  cluster = await createPostgresCluster({ sql: pool, clock: createManualClock(1_000) });
  probe = postgres(pg.url, { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await probe?.end();
  await cluster?.close();
  await store?.close();
  await pool?.end();
  await pg?.stop();
});

/** Write transactions committed while `work` ran. */
async function writesDuring(work: () => Promise<unknown>): Promise<number> {
  const [before] = await probe<{ x: string }[]>`SELECT txid_current()::text AS x`;
  await work();
  const [after] = await probe<{ x: string }[]>`SELECT txid_current()::text AS x`;
  return Number(after?.x) - Number(before?.x) - 1;
}

describe('one transaction per write on PostgreSQL', () => {
  it('a pin and a forget each commit once (entry and event together); a repeated pin writes nothing', async () => {
    const core = createCore({ store, cluster, clock: createManualClock(1_000), rateLimit: { limit: 100, windowMs: 1_000 } });
    await core.accounts.create('acme');
    expect(await writesDuring(() => core.memory.pin({ accountId: 'acme', kind: 'live' }, 'token:WETH', 'watch'))).toBe(1);
    // Pinned already with that note: read without a lock, nothing written, no commit to sync.
    expect(await writesDuring(() => core.memory.pin({ accountId: 'acme', kind: 'live' }, 'token:WETH', 'watch'))).toBe(0);
    expect(await writesDuring(() => core.memory.pin({ accountId: 'acme', kind: 'live' }, 'pair:WETH-USDC'))).toBe(1);
    expect(await writesDuring(() => core.memory.forget({ accountId: 'acme', kind: 'live' }, 'token:WETH'))).toBe(1);
    expect((await store.eventsAfter('acme', 0, 10)).map((e) => [e.data.key, e.data.tier])).toEqual([
      ['token:WETH', 'pinned'],
      ['pair:WETH-USDC', 'pinned'],
      ['token:WETH', 'dropped'],
    ]);
  });

  it('a failure inside the unit keeps neither the entry nor the event', async () => {
    await expect(
      store.atomically(async (tx) => {
        await tx.changeMemory('b', ['topic:x'], () => ({
          put: [{ key: 'topic:x', tier: 'pinned', pinned_by: 'user', weight: 1, note: '', touches: 1, last_seen: 0, due_at: null }],
          result: undefined,
        }));
        await tx.appendEvent('b', { type: 'memory', data: {}, at: 0 });
        throw new Error('the turn failed');
      }),
    ).rejects.toThrow('the turn failed');
    expect(await store.readMemory('b')).toEqual([]);
    expect(await store.eventBounds('b')).toEqual({ oldest: null, latest: 0 });
    // Work a unit starts on the store itself goes to the pool, not to the unit's transaction.
    let late: Promise<unknown> = Promise.resolve();
    let unitOver!: () => void;
    const over = new Promise<void>((r) => {
      unitOver = r;
    });
    await store.atomically(async () => {
      late = over.then(() => store.appendEvent('b', { type: 'memory', data: {}, at: 1 }));
    });
    unitOver(); // the unit has committed: the late work starts only now
    await expect(late).resolves.toMatchObject({ id: 1 });
  });

  it('a statement that failed fails its unit, even when the work swallowed its error: nothing the unit wrote is kept', async () => {
    const db = openDatabase(pg.url, { max: 2 });
    try {
      const unit = unitOfWorkOn(db);
      await db`CREATE TABLE IF NOT EXISTS scratch (n int)`;
      await expect(
        unit.atomically(async ({ sql }) => {
          await sql`INSERT INTO scratch VALUES (1)`;
          await sql`SELECT 1 / 0`.catch(() => undefined); // aborts the transaction
        }),
      ).rejects.toMatchObject({ type: 'store_unavailable', message: expect.stringMatching(/rolled back/) });
      expect(await db`SELECT n FROM scratch`).toHaveLength(0);
      // The connection went back to the pool fit for use: the next unit commits.
      await unit.atomically(async ({ sql }) => {
        await sql`INSERT INTO scratch VALUES (2)`;
      });
      expect((await db<{ n: number }[]>`SELECT n FROM scratch`).map((r) => r.n)).toEqual([2]);
    } finally {
      await db.end();
    }
  });

  it('units open together keep their own transactions; a statement on the pool from inside one joins none', async () => {
    const db = openDatabase(pg.url, { max: 4 });
    try {
      const unit = unitOfWorkOn(db);
      await db`CREATE TABLE IF NOT EXISTS overlap (n int)`;
      let bDone!: () => void;
      const bCommitted = new Promise<void>((r) => {
        bDone = r;
      });
      const a = unit.atomically(async ({ sql }) => {
        await sql`INSERT INTO overlap VALUES (1)`;
        await db`INSERT INTO overlap VALUES (3)`; // the pool, called from inside A: commits alone
        await bCommitted; // B opens and commits meanwhile: A is still open
        await sql`INSERT INTO overlap VALUES (2)`;
        throw new Error('A fails');
      });
      await unit.atomically(async ({ sql }) => {
        await sql`INSERT INTO overlap VALUES (10)`;
      });
      bDone();
      await expect(a).rejects.toThrow('A fails');
      // Both of A's rows went with its rollback; what went to the pool stayed.
      expect((await db<{ n: number }[]>`SELECT n FROM overlap ORDER BY n`).map((r) => r.n)).toEqual([3, 10]);
    } finally {
      await db.end();
    }
  });

  it('afterCommit waits for the unit to commit, never runs for one rolled back, and is refused once the unit has ended', async () => {
    const seen: string[] = [];
    let kept: StoreTx | undefined;
    await store.atomically(async (tx) => {
      kept = tx;
      await tx.appendEvent('c', { type: 'memory', data: {}, at: 0 });
      tx.afterCommit(() => seen.push('committed'));
      seen.push('inside');
    });
    await expect(
      store.atomically(async (tx) => {
        tx.afterCommit(() => seen.push('rolled back'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(seen).toEqual(['inside', 'committed']);
    expect(() => kept?.afterCommit(() => seen.push('late'))).toThrow(/ended/);
  });

  it("a request's rate count rides in the next commit: a keyed pin commits once, a keyed read writes nothing", async () => {
    // The server's arrangement: the store and the cluster on one pool, so they share its unit of work.
    const sql = openDatabase(pg.url, { max: 3 });
    const clock = createManualClock(5_000);
    const shared = await createPostgresStore({ sql, keystore: createKeystore(randomBytes(32)) });
    const cluster = await createPostgresCluster({ sql, clock, requestSyncMs: 60_000 }); // only commits write counts
    try {
      const core = createCore({ store: shared, cluster, clock, rateLimit: { limit: 100, windowMs: 60_000 } });
      await core.accounts.create('rates');
      const times = async () =>
        (await probe<{ times: number[] }[]>`SELECT times FROM rate_logs WHERE scope = 'key' AND id = 'key_r'`)[0]?.times.length ?? 0;
      // First sight reads the window once; after that a request is decided in memory.
      await core.rateLimiter.hit('key_r');
      expect(await writesDuring(async () => core.rateLimiter.hit('key_r'))).toBe(0);
      expect(await times()).toBe(0);
      // The pin's transaction carries both counts (its own request's among them).
      expect(
        await writesDuring(async () => {
          await core.rateLimiter.hit('key_r');
          await core.memory.pin({ accountId: 'rates', kind: 'live' }, 'token:WETH');
        }),
      ).toBe(1);
      expect(await times()).toBe(3);
      // A unit that fails writes no count: the next commit carries it.
      await core.rateLimiter.hit('key_r');
      await expect(
        shared.atomically(async (tx) => {
          await tx.appendEvent('rates', { type: 'memory', data: {}, at: 0 });
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await times()).toBe(3);
      await core.memory.pin({ accountId: 'rates', kind: 'live' }, 'token:DAI');
      expect(await times()).toBe(4);
    } finally {
      await cluster.close();
      await shared.close();
      await sql.end();
    }
  });
});

describe('nothing leaves before commit, nothing joins a unit it was not handed', () => {
  it('a unit that emits and then rolls back announces nothing; the next committed event reaches every live stream', async () => {
    // Two servers on the database: this one (whose pump an emit wakes) and another (woken by NOTIFY).
    const other = openDatabase(pg.url, { max: 3 });
    const otherStore = await createPostgresStore({ sql: other, keystore: createKeystore(randomBytes(32)) });
    const otherCluster = await createPostgresCluster({ sql: other, clock: createManualClock(1_000) });
    const clock = createManualClock(1_000);
    const here = createCore({ store, cluster, clock, rateLimit: { limit: 100, windowMs: 1_000 } });
    const there = createCore({ store: otherStore, cluster: otherCluster, clock, rateLimit: { limit: 100, windowMs: 1_000 } });
    const caller = { accountId: 'rolled', kind: 'live' } as const;
    const streams = [here, there].map((core) => core.events.subscribe(caller, undefined, () => true)[Symbol.asyncIterator]());
    try {
      await here.accounts.create('rolled');
      // Each stream has told where it starts (the account's latest id) before anything is appended.
      for (const s of streams) expect((await s.next()).value).toMatchObject({ kind: 'cursor' });
      await expect(
        store.atomically(async (tx) => {
          await here.events.emitIn(tx, caller, 'memory', { key: 'topic:never', tier: 'pinned' });
          // Had the append woken this server's pump, the pump's read would already be on its way
          // (in this transaction, where it would see the append): it would answer before this one.
          await tx.eventsAfter('rolled', 0, 10);
          throw new Error('the turn failed');
        }),
      ).rejects.toThrow('the turn failed');
      // The rolled-back append's id is the next committed one's: a stream that saw the first would skip this.
      const committed = await here.events.emit(caller, 'memory', { key: 'topic:kept', tier: 'pinned' });
      await here.events.emit(caller, 'memory', { key: 'topic:next', tier: 'pinned' });
      for (const s of streams) {
        const seen = [(await s.next()).value, (await s.next()).value].map((item) =>
          item.kind === 'event' ? [item.event.id, item.event.data.key] : item,
        );
        expect(seen).toEqual([
          [committed.id, 'topic:kept'],
          [committed.id + 1, 'topic:next'],
        ]);
      }
    } finally {
      for (const s of streams) await s.return?.();
      here.events.close();
      there.events.close();
      await otherCluster.close();
      await otherStore.close();
      await other.end();
    }
  });

  it("a lock holder queued behind one inside a unit writes on its own: the first holder's rollback keeps the second's write", async () => {
    const locks = createPostgresLocks({ sql: pool, max: 2 });
    try {
      let secondDone!: () => void;
      const second = new Promise<void>((r) => {
        secondDone = r;
      });
      const first = store.atomically(async (tx) => {
        await tx.appendEvent('holder-1', { type: 'memory', data: {}, at: 0 });
        await locks.withLock('handoff', async () => {
          // Queued while this one holds the lock: the lock hands over to it without letting go.
          void locks.withLock('handoff', async () => {
            await store.appendEvent('holder-2', { type: 'memory', data: {}, at: 0 });
            secondDone();
          });
        });
        await second;
        throw new Error('the first holder fails');
      });
      await expect(first).rejects.toThrow('the first holder fails');
      expect((await store.eventBounds('holder-1')).latest).toBe(0);
      expect((await store.eventBounds('holder-2')).latest).toBe(1);
    } finally {
      await locks.close();
    }
  });
});
