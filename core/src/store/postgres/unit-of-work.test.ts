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
import { createCore } from '../../create-core';
import { createKeystore } from '../../keystore/keystore';
import type { StorePort } from '../store-port';
import { createPostgresCluster } from './cluster';
import { openDatabase } from './database';
import { createPostgresStore } from './postgres-store';
import { unitOfWorkOn } from './unit-of-work';

let pg: ThrowawayPostgres;
let store: StorePort;
let probe: postgres.Sql;
beforeAll(async () => {
  pg = await startPostgres();
  store = await createPostgresStore({ url: pg.url, keystore: createKeystore(randomBytes(32)) });
  probe = postgres(pg.url, { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await probe?.end();
  await store?.close();
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
    const core = createCore({ store, clock: createManualClock(1_000), rateLimit: { limit: 100, windowMs: 1_000 } });
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
      store.atomically(async () => {
        await store.changeMemory('b', ['topic:x'], () => ({
          put: [{ key: 'topic:x', tier: 'pinned', pinned_by: 'user', weight: 1, note: '', touches: 1, last_seen: 0, due_at: null }],
          result: undefined,
        }));
        await store.appendEvent('b', { type: 'memory', data: {}, at: 0 });
        throw new Error('the turn failed');
      }),
    ).rejects.toThrow('the turn failed');
    expect(await store.readMemory('b')).toEqual([]);
    expect(await store.eventBounds('b')).toEqual({ oldest: null, latest: 0 });
    // Work that outlives its unit goes to the pool, not to the finished transaction.
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
      await unit.db`CREATE TABLE IF NOT EXISTS scratch (n int)`;
      await expect(
        unit.atomically(async () => {
          await unit.db`INSERT INTO scratch VALUES (1)`;
          await unit.db`SELECT 1 / 0`.catch(() => undefined); // aborts the transaction
        }),
      ).rejects.toThrow(/rolled back/);
      expect(await unit.db`SELECT n FROM scratch`).toHaveLength(0);
      // The connection went back to the pool fit for use: the next unit commits.
      await unit.atomically(async () => {
        await unit.db`INSERT INTO scratch VALUES (2)`;
      });
      expect((await unit.db<{ n: number }[]>`SELECT n FROM scratch`).map((r) => r.n)).toEqual([2]);
    } finally {
      await db.end();
    }
  });

  it('a unit closing while another is open leaves the other in its transaction; units after both still find theirs', async () => {
    const db = openDatabase(pg.url, { max: 3 });
    try {
      const unit = unitOfWorkOn(db);
      await unit.db`CREATE TABLE IF NOT EXISTS overlap (n int)`;
      let bDone!: () => void;
      const bCommitted = new Promise<void>((r) => {
        bDone = r;
      });
      const a = unit.atomically(async () => {
        await unit.db`INSERT INTO overlap VALUES (1)`;
        await bCommitted; // B opens and commits meanwhile: A is still open
        await unit.db`INSERT INTO overlap VALUES (2)`;
        throw new Error('A fails');
      });
      await unit.atomically(async () => {
        await unit.db`INSERT INTO overlap VALUES (10)`;
      });
      bDone();
      await expect(a).rejects.toThrow('A fails');
      // Both of A's rows went with its rollback: neither reached the pool on its own.
      expect((await unit.db<{ n: number }[]>`SELECT n FROM overlap`).map((r) => r.n)).toEqual([10]);
      // No unit open now; the next one still runs its statements in its own transaction.
      await expect(
        unit.atomically(async () => {
          await unit.db`INSERT INTO overlap VALUES (20)`;
          throw new Error('C fails');
        }),
      ).rejects.toThrow('C fails');
      expect((await unit.db<{ n: number }[]>`SELECT n FROM overlap`).map((r) => r.n)).toEqual([10]);
    } finally {
      await db.end();
    }
  });

  it('afterCommit waits for the unit to commit (and never runs for one rolled back); outside a unit it runs at once', async () => {
    const seen: string[] = [];
    await store.atomically(async () => {
      await store.appendEvent('c', { type: 'memory', data: {}, at: 0 });
      store.afterCommit(() => seen.push('committed'));
      seen.push('inside');
    });
    await expect(
      store.atomically(async () => {
        store.afterCommit(() => seen.push('rolled back'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    store.afterCommit(() => seen.push('outside'));
    expect(seen).toEqual(['inside', 'committed', 'outside']); // at once: nothing awaited since
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
        shared.atomically(async () => {
          await shared.appendEvent('rates', { type: 'memory', data: {}, at: 0 });
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
