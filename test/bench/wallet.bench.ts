// Wallet benchmarks (issue 4), against the embedded devnet with the server in this process:
// - POST /v1/wallet/intent (a swap within policy), latency p50/p99 split into quote, gate,
//   sign+send and receipt (from the pipeline's onTiming hook), and our overhead: the request's
//   time minus the time the chain's JSON-RPC was busy answering us (measured on the wire from
//   undici's diagnostics channels for requests to the devnet; overlapping requests count once).
//   On lowdb, then on PostgreSQL (fsync on): the overhead per store.
// - GET /v1/chain/pools, p50/p99 within one block (the per-block cache) and right after a new
//   block (everything read again).
import { randomBytes } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { Pool } from 'undici';
import { startPostgres } from '../../scripts/postgres';
import { call, removeDir, startTestServer, type TestServer } from '../src/harness';
import { anvilsOf, OPEN_POLICY, putPolicy, rpc } from '../src/wallet-helpers';
import { fmt, percentile, type Row } from './stats';

type Interval = [number, number];

/** Records when requests to `rpcUrl` are in flight, from undici's diagnostics channels (the
 * dispatcher under both the global fetch and the chain port's pooled client): from the
 * request's creation in the dispatcher until its response headers are in. JSON-RPC answers
 * here are a few hundred bytes and arrive with the headers; building requests, reading and
 * decoding answers is our own CPU time, so it counts as ours. */
function meterRpc(rpcUrl: string) {
  const origin = new URL(rpcUrl).origin;
  const busy: Interval[] = [];
  const pending = new Set<object>();
  let since = 0;
  type Msg = { request: { origin?: unknown } };
  const onCreate = (m: unknown) => {
    const { request } = m as Msg;
    if (String(request.origin).replace(/\/$/, '') !== origin) return;
    if (pending.size === 0) since = performance.now();
    pending.add(request);
  };
  const onEnd = (m: unknown) => {
    const { request } = m as Msg;
    if (pending.delete(request) && pending.size === 0) busy.push([since, performance.now()]);
  };
  const channels: [string, (m: unknown) => void][] = [
    ['undici:request:create', onCreate],
    ['undici:request:headers', onEnd],
    ['undici:request:error', onEnd],
  ];
  for (const [name, fn] of channels) diagnostics.subscribe(name, fn);
  return {
    /** Milliseconds within [from, to] during which at least one RPC was in flight. */
    busyWithin(from: number, to: number) {
      let total = 0;
      for (const [a, b] of busy) total += Math.max(0, Math.min(b, to) - Math.max(a, from));
      return total;
    },
    reset: () => {
      busy.length = 0;
    },
    restore: () => {
      for (const [name, fn] of channels) diagnostics.unsubscribe(name, fn);
    },
  };
}

const p = (xs: number[], q: number) => fmt(percentile(xs, q), 2);

/** The measured requests go through undici's pooled `request`, not the global fetch: the
 * client shares this process with the server, and fetch's WHATWG streams would add about
 * half a millisecond of the client's own CPU to every figure. */
function leanClient(s: TestServer) {
  const pool = new Pool(s.url, { connections: 1 });
  return {
    async post(path: string, body: unknown) {
      const res = await pool.request({
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${s.live}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      return { status: res.statusCode, text, json: JSON.parse(text) };
    },
    close: () => pool.close(),
  };
}

type Phase = 'quote' | 'gate' | 'sign+send' | 'receipt';
const PHASES: Phase[] = ['quote', 'gate', 'sign+send', 'receipt'];
type IntentFigures = {
  total: number[];
  chain: number[];
  ours: number[];
  phases: Record<Phase, number[]>;
  phaseOurs: Record<Phase, number[]>;
};

/** `n` swaps within policy, one at a time, after a warm-up: each one's time, its chain RPC time and its phases. */
async function measureIntents(s: TestServer, rpcUrl: string, n: number): Promise<IntentFigures> {
  await putPolicy(s, s.live, OPEN_POLICY);
  const wallet = s.core.wallet;
  if (!wallet) throw new Error('no chain');
  // Alternate directions so the pool stays put.
  const texts = ['swap 2 USDC for WETH', 'swap 0.0006 WETH for USDC'];
  // Warm up (the first of each direction also approves; the JIT settles over a few dozen).
  for (let i = 0; i < 30; i++) {
    const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: texts[i % 2] } });
    if (r.status !== 200) throw new Error(`warm-up intent answered ${r.status}: ${r.text}`);
  }
  const meter = meterRpc(rpcUrl);
  const timings = new Map<string, Parameters<Parameters<typeof wallet.pipeline.onTiming>[0]>[0]>();
  const stop = wallet.pipeline.onTiming((t) => timings.set(t.intent_id, t));
  const perPhase = () => Object.fromEntries(PHASES.map((name) => [name, [] as number[]])) as Record<Phase, number[]>;
  const f: IntentFigures = { total: [], chain: [], ours: [], phases: perPhase(), phaseOurs: perPhase() };
  const client = leanClient(s);
  try {
    for (let i = 0; i < n; i++) {
      meter.reset();
      const t0 = performance.now();
      const r = await client.post('/v1/wallet/intent', { do: texts[i % 2] });
      const t1 = performance.now();
      if (r.status !== 200) throw new Error(`intent answered ${r.status}: ${r.text}`);
      const t = timings.get(r.json.intent_id);
      if (!t) throw new Error('no timing reported for the intent');
      const rpcMs = meter.busyWithin(t0, t1);
      f.total.push(t1 - t0);
      f.chain.push(rpcMs);
      f.ours.push(t1 - t0 - rpcMs);
      const spans: [Phase, number, number][] = [
        ['quote', t.start, t.quoted],
        ['gate', t.quoted, t.gated],
        ['sign+send', t.gated, t.sent],
        ['receipt', t.sent, t.settled],
      ];
      for (const [name, a, b] of spans) {
        f.phases[name].push(b - a);
        f.phaseOurs[name].push(b - a - meter.busyWithin(a, b));
      }
    }
  } finally {
    stop();
    meter.restore();
    await client.close();
  }
  return f;
}

async function intentLatency(s: TestServer, rpcUrl: string, rows: Row[], n = 300) {
  const f = await measureIntents(s, rpcUrl, n);
  const label = `POST /v1/wallet/intent (swap, within policy, n=${n})`;
  rows.push({ benchmark: `${label}: total p50 / p99 ms`, figure: `${p(f.total, 50)} / ${p(f.total, 99)}`, target: '' });
  for (const name of PHASES) {
    rows.push({
      benchmark: `  ${name}: p50 / p99 ms (ours p50)`,
      figure: `${p(f.phases[name], 50)} / ${p(f.phases[name], 99)} (${p(f.phaseOurs[name], 50)})`,
      target: '',
    });
  }
  rows.push({ benchmark: '  chain JSON-RPC time: p50 / p99 ms', figure: `${p(f.chain, 50)} / ${p(f.chain, 99)}`, target: '' });
  // The receipt poll's waits while anvil has not mined yet are time spent waiting for the
  // chain, though not inside an RPC: they count as ours here.
  rows.push({
    benchmark: '  our overhead (total - chain RPC): p50 / p99 ms',
    figure: `${p(f.ours, 50)} / ${p(f.ours, 99)}`,
    target: '< 5 p50',
  });
  const polled = f.phases.receipt.filter((ms) => ms >= 20).length;
  rows.push({ benchmark: '  receipts that took 20 ms or more (several polls)', figure: `${polled}/${n}`, target: '' });
}

/**
 * The same intents on a server over PostgreSQL (fsync on, as deployed): the store's round
 * trips and commits count as ours, as lowdb's fsyncs do.
 */
async function intentLatencyOnPostgres(rows: Row[], n = 300) {
  const pg = await startPostgres({ fsync: true });
  try {
    const env = { PRESENCE_DATABASE_URL: await pg.createDatabase(), PRESENCE_MASTER_KEY: randomBytes(32).toString('hex') };
    await withWalletServer(env, async (s, rpcUrl) => {
      const f = await measureIntents(s, rpcUrl, n);
      rows.push({
        benchmark: `POST /v1/wallet/intent on PostgreSQL (swap, n=${n}): total p50 / p99 ms`,
        figure: `${p(f.total, 50)} / ${p(f.total, 99)}`,
        target: '',
      });
      rows.push({
        benchmark: '  our overhead on PostgreSQL (total - chain RPC): p50 / p99 ms',
        figure: `${p(f.ours, 50)} / ${p(f.ours, 99)} (quote ${p(f.phaseOurs.quote, 50)}, gate ${p(f.phaseOurs.gate, 50)}, sign+send ${p(f.phaseOurs['sign+send'], 50)}, receipt ${p(f.phaseOurs.receipt, 50)})`,
        target: '',
      });
    });
  } finally {
    await pg.stop();
  }
}

async function poolsLatency(s: TestServer, rpcUrl: string, rows: Row[], n = 300) {
  const get = async () => {
    const t0 = performance.now();
    const r = await call(s.url, 'GET', '/v1/chain/pools', { key: s.live });
    if (r.status !== 200) throw new Error(`pools answered ${r.status}: ${r.text}`);
    return performance.now() - t0;
  };
  await get();
  const warm: number[] = [];
  for (let i = 0; i < n; i++) warm.push(await get());
  rows.push({
    benchmark: `GET /v1/chain/pools, same block (n=${n}): p50 / p99 ms`,
    figure: `${p(warm, 50)} / ${p(warm, 99)}`,
    target: '< 20 p50',
  });
  const cold: number[] = [];
  for (let i = 0; i < n / 3; i++) {
    await rpc(rpcUrl, 'evm_mine');
    cold.push(await get());
  }
  rows.push({
    benchmark: `GET /v1/chain/pools, first after a new block (n=${n / 3}): p50 / p99 ms`,
    figure: `${p(cold, 50)} / ${p(cold, 99)}`,
    target: '',
  });
}

/** A server with the embedded devnet in this process, on the store `env` names (lowdb when empty). */
async function withWalletServer(env: Record<string, string>, run: (s: TestServer, rpcUrl: string) => Promise<void>) {
  const s = await startTestServer({ chain: true, env: { PRESENCE_RATE_LIMIT: '100000000/1s', ...env } });
  try {
    const anvil = anvilsOf(s.dataDir)[0];
    if (!anvil) throw new Error('no devnet found');
    await run(s, anvil.rpcUrl);
  } finally {
    await s.close();
    removeDir(s.dataDir);
  }
}

export async function walletBenchmarks(rows: Row[]) {
  await withWalletServer({}, async (s, rpcUrl) => {
    await intentLatency(s, rpcUrl, rows);
    await poolsLatency(s, rpcUrl, rows);
  });
  await intentLatencyOnPostgres(rows);
}
