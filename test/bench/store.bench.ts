// Store benchmarks (issue 16): the two adapters of the store port side by side, with every
// write durable (lowdb fsyncs; PostgreSQL with fsync on, on loopback). A "pin" is what
// POST /v1/memory/pin asks of the store: one memory update and one appended event. Measured
// at 100 and 100,000 stored events for the account, with 10 callers at once on that account
// and on 10 accounts, and appendEvent's latency for one caller alone. The daily-cap sum is
// timed at the thousandth intent of the day over a longer history.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { StorePort } from '@presence/core';
import { createLowdbStore } from '@presence/core/lowdb';
import { createPostgresStore } from '@presence/core/postgres';
import postgres from 'postgres';
import { startPostgres } from '../../scripts/postgres';
import { fmt, percentile, type Row } from './stats';

const ACCOUNT = 'acct_bench';
const PINS = 1000;
const CALLERS = 10;
const SOLO_APPENDS = 300;

type Adapter = { name: string; open(stored: number): Promise<{ store: StorePort; done(): Promise<void> }> };

const lowdb: Adapter = {
  name: 'lowdb',
  async open(stored) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-store-'));
    // The log as the server would have written it (ids 1…stored), then opened durably.
    const seed = await createLowdbStore({ dataDir, fsync: false });
    await seed.close();
    const at = Date.now();
    const lines = Array.from({ length: stored }, (_, i) => JSON.stringify({ id: i + 1, type: 'memory', data: { key: `topic:s${i}` }, at }));
    writeFileSync(path.join(dataDir, 'data', 'events', `${ACCOUNT}.jsonl`), `${lines.join('\n')}\n`);
    const store = await createLowdbStore({ dataDir });
    return {
      store,
      async done() {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

function postgresAdapter(createDatabase: () => Promise<string>): Adapter {
  return {
    name: 'PostgreSQL',
    async open(stored) {
      const url = await createDatabase();
      const store = await createPostgresStore({ url });
      const sql = postgres(url, { max: 1, onnotice: () => undefined });
      await sql`INSERT INTO events (account_id, id, type, at, data)
        SELECT ${ACCOUNT}, n, 'memory', ${Date.now()}, json_build_object('key', 'topic:s' || n) FROM generate_series(1, ${stored}::int) n`;
      await sql`INSERT INTO account_seq (account_id, events) VALUES (${ACCOUNT}, ${stored})`;
      await sql`VACUUM ANALYZE events`;
      await sql.end();
      return { store, done: () => store.close() };
    },
  };
}

const entry = (i: number, note: string) => ({
  key: `topic:k${i % 100}`,
  tier: 'pinned' as const,
  pinned_by: 'user' as const,
  weight: 1,
  note,
  touches: 1,
  last_seen: Date.now(),
});

/** One pin: write (or replace) one memory entry and append its event. */
async function pin(store: StorePort, i: number, account = ACCOUNT) {
  const e = entry(i, `n${i}`);
  await store.changeMemory(account, [e.key], () => ({ put: [e], result: undefined }));
  await store.appendEvent(account, { type: 'memory', data: { key: e.key, tier: e.tier }, at: Date.now() });
}

async function measure(adapter: Adapter, stored: number, rows: Row[]) {
  const { store, done } = await adapter.open(stored);
  try {
    for (let i = 0; i < 100; i++) await pin(store, i); // warm-up, and a 100-entry memory document
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (next < PINS) await pin(store, next++);
      }),
    );
    const pinsPerSecond = PINS / ((performance.now() - started) / 1000);
    // The same callers, each pinning for an account of its own (no shared lock).
    next = 0;
    const spread = performance.now();
    await Promise.all(
      Array.from({ length: CALLERS }, async (_, c) => {
        while (next < PINS) await pin(store, next++, `${ACCOUNT}_${c}`);
      }),
    );
    const spreadPerSecond = PINS / ((performance.now() - spread) / 1000);
    const solo: number[] = [];
    for (let i = 0; i < SOLO_APPENDS; i++) {
      const t0 = performance.now();
      await store.appendEvent(ACCOUNT, { type: 'memory', data: { i }, at: Date.now() });
      solo.push(performance.now() - t0);
    }
    const label = `${adapter.name}, ${stored.toLocaleString('en')} events stored`;
    rows.push({ benchmark: `store pins/s, ${CALLERS} callers on one account, ${label}`, figure: fmt(pinsPerSecond, 0), target: '' });
    rows.push({
      benchmark: `store pins/s, ${CALLERS} callers on ${CALLERS} accounts, ${label}`,
      figure: fmt(spreadPerSecond, 0),
      target: '',
    });
    rows.push({
      benchmark: `store appendEvent p50 / p99 ms (one caller), ${label}`,
      figure: `${fmt(percentile(solo, 50), 2)} / ${fmt(percentile(solo, 99), 2)}`,
      target: '',
    });
  } finally {
    await done();
  }
}

/** spentSince at the thousandth intent of the day, over 10 earlier days of 1,000 each. */
async function dailyCap(adapter: Adapter, rows: Row[]) {
  const { store, done } = await adapter.open(0);
  try {
    const day = 86_400_000;
    const base = (Math.floor(Date.now() / day) - 10) * day;
    for (let d = 0; d <= 10; d++)
      for (let i = 0; i < 1000; i += 100)
        await Promise.all(
          Array.from({ length: 100 }, (_, j) => {
            const at = base + d * day + (i + j) * 1000;
            return store.createIntent({
              id: `in_${d}_${i + j}`,
              account_id: ACCOUNT,
              source: 'api',
              idempotency_key: null,
              text: 'wrap 0.001 ETH',
              action: 'wrap',
              summary: 'wrap 0.001 ETH',
              amount: '0.001 ETH',
              value_usd: '2500000000000000000',
              tokens: ['ETH', 'WETH'],
              to: null,
              quote_block: 1,
              steps: [],
              state: 'done',
              confirm_id: null,
              expires_at: null,
              txs: [],
              block: 1,
              error: null,
              context: null,
              created_at: at,
              updated_at: at,
              executed_at: at,
            });
          }),
        );
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await store.spentSince(ACCOUNT, base + 10 * day);
      times.push(performance.now() - t0);
    }
    rows.push({
      benchmark: `store spentSince p50 ms, 1,000th intent of the day (11,000 in all), ${adapter.name}`,
      figure: fmt(percentile(times, 50), 3),
      target: '',
    });
  } finally {
    await done();
  }
}

export async function storeBenchmarks(rows: Row[]) {
  const pg = await startPostgres({ fsync: true });
  try {
    const adapters = [lowdb, postgresAdapter(() => pg.createDatabase())];
    for (const stored of [100, 100_000]) for (const a of adapters) await measure(a, stored, rows);
    for (const a of adapters) await dailyCap(a, rows);
  } finally {
    await pg.stop();
  }
}
