// A server on PostgreSQL against the same server on lowdb (issue 16), both in this process
// with the embedded devnet, every write durable (PostgreSQL with fsync on):
// - 20 concurrent POST /v1/wallet/intent (swaps within policy) on one wallet, ten rounds on
//   each store: latency p50/p99 on each, and PostgreSQL's p50 overhead over lowdb's. Both
//   servers run at once and take their rounds in turn, so load from elsewhere on the machine
//   falls on both alike. The chain and the wallet's nonce lock are the same on both, so the
//   difference is the store's (and the rate-limit count, a write on PostgreSQL).
// - Events append → stream: an event emitted in core until it arrives, parsed, on an open
//   SSE stream of the same server (the store's append, the fan-out and the wire).
import http from 'node:http';
import { startPostgres, type ThrowawayPostgres } from '../../scripts/postgres';
import { removeDir, startTestServer, type TestServer } from '../src/harness';
import { OPEN_POLICY, putPolicy } from '../src/wallet-helpers';
import { fmt, percentile, type Row } from './stats';

const CONCURRENT = 20;
const ROUNDS = 10;
const LATENCY_N = 300;
const FAST = { PRESENCE_RATE_LIMIT: '100000000/1s' };

type Store = { name: string; env: () => Promise<Record<string, string>> };

async function withServer<T>(store: Store, run: (s: TestServer) => Promise<T>): Promise<T> {
  const s = await startTestServer({ chain: true, env: { ...FAST, ...(await store.env()) } });
  try {
    return await run(s);
  } finally {
    await s.close();
    removeDir(s.dataDir);
  }
}

async function postIntent(s: TestServer, text: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${s.url}/v1/wallet/intent`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json' },
    body: JSON.stringify({ do: text }),
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`intent answered ${res.status}: ${body}`);
  return performance.now() - t0;
}

const texts = ['swap 2 USDC for WETH', 'swap 0.0006 WETH for USDC'];

/** Latencies of ROUNDS bursts of CONCURRENT intents on each server, the servers taking turns, after a warm-up. */
async function concurrentIntents(servers: TestServer[]): Promise<number[][]> {
  for (const s of servers) {
    await putPolicy(s, s.live, OPEN_POLICY);
    // Alternate directions so the pool stays put; the first of each also approves the router.
    for (let i = 0; i < 20; i++) await postIntent(s, texts[i % 2] as string);
  }
  const all = servers.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, s] of servers.entries()) {
      all[i]?.push(...(await Promise.all(Array.from({ length: CONCURRENT }, (_, j) => postIntent(s, texts[j % 2] as string)))));
    }
  }
  return all;
}

/** Emit → arrival on one open SSE stream, one event at a time. */
async function appendToStream(s: TestServer): Promise<number[]> {
  const [account] = await s.core.store.listAccounts();
  if (!account) throw new Error('no account');
  let waiting: { marker: string; arrived: (at: number) => void } | null = null;
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  const req = http.get(new URL('/v1/events', s.url), { headers: { authorization: `Bearer ${s.live}` } }, (res) => {
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      buf += d;
      if (waiting && buf.includes(waiting.marker)) {
        const w = waiting;
        waiting = null;
        buf = '';
        w.arrived(performance.now());
      }
    });
    // Headers are written after the server has subscribed: nothing emitted from here is missed.
    opened();
  });
  req.on('error', () => undefined);
  await open;
  const times: number[] = [];
  try {
    for (let i = 0; i < LATENCY_N + 20; i++) {
      const marker = `lat-${i}-${Math.random().toString(36).slice(2)}`;
      const arrived = new Promise<number>((resolve) => (waiting = { marker, arrived: resolve }));
      const t0 = performance.now();
      await s.core.events.emit({ accountId: account.id, kind: 'live' }, 'memory', { key: `topic:${marker}`, tier: 'fading' });
      const t1 = await Promise.race([
        arrived,
        new Promise<number>((_, reject) => setTimeout(() => reject(new Error('event never arrived')), 5_000)),
      ]);
      if (i >= 20) times.push(t1 - t0); // the first few warm the path up
    }
  } finally {
    req.destroy();
  }
  return times;
}

export async function postgresServerBenchmarks(rows: Row[]) {
  let pg: ThrowawayPostgres | null = null;
  const stores: Store[] = [
    { name: 'lowdb', env: async () => ({}) },
    {
      name: 'PostgreSQL',
      env: async () => {
        pg ??= await startPostgres({ fsync: true });
        return { PRESENCE_DATABASE_URL: await pg.createDatabase(), PRESENCE_MASTER_KEY: 'ab'.repeat(32) };
      },
    },
  ];
  try {
    const servers: TestServer[] = [];
    let latencies: number[][];
    try {
      for (const store of stores) servers.push(await startTestServer({ chain: true, env: { ...FAST, ...(await store.env()) } }));
      latencies = await concurrentIntents(servers);
    } finally {
      for (const s of servers) {
        await s.close();
        removeDir(s.dataDir);
      }
    }
    const p50s = latencies.map((times) => percentile(times, 50));
    for (const [i, store] of stores.entries()) {
      const times = latencies[i] as number[];
      rows.push({
        benchmark: `${CONCURRENT} concurrent intents × ${ROUNDS} rounds, ${store.name}: p50 / p99 ms`,
        figure: `${fmt(percentile(times, 50), 1)} / ${fmt(percentile(times, 99), 1)}`,
        target: '',
      });
    }
    rows.push({
      benchmark: `${CONCURRENT} concurrent intents: PostgreSQL p50 overhead over lowdb, ms`,
      figure: fmt((p50s[1] ?? 0) - (p50s[0] ?? 0), 1),
      target: '≤ 20',
    });
    for (const store of stores) {
      const times = await withServer(store, appendToStream);
      rows.push({
        benchmark: `events append → stream (one server), ${store.name}: p50 / p99 ms`,
        figure: `${fmt(percentile(times, 50), 2)} / ${fmt(percentile(times, 99), 2)}`,
        target: '',
      });
    }
  } finally {
    await (pg as ThrowawayPostgres | null)?.stop();
  }
}
