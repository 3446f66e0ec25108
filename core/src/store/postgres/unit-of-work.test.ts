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
import { createPostgresStore } from './postgres-store';

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
  it('a pin, a repeated pin and a forget each commit once (entry and event together)', async () => {
    const core = createCore({ store, clock: createManualClock(1_000), rateLimit: { limit: 100, windowMs: 1_000 } });
    await core.accounts.create('acme');
    expect(await writesDuring(() => core.memory.pin('acme', 'live', 'token:WETH', 'watch'))).toBe(1);
    expect(await writesDuring(() => core.memory.pin('acme', 'live', 'pair:WETH-USDC'))).toBe(1);
    expect(await writesDuring(() => core.memory.forget('acme', 'live', 'token:WETH'))).toBe(1);
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
});
