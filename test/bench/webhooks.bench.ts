// Webhooks (issue 34), in this process on the embedded store and real HTTP to a receiver on
// 127.0.0.1: the time from an event's commit to its delivery with 100 endpoints (10 accounts
// of 10, the system clock), the rate the backlog of a 60 s receiver outage drains at once the
// schedule's retry comes (the core's clock driven through the outage and the wait), and the
// CPU of the beat (tick every second) with 10,000 endpoints on idle accounts against none
// (target: within 2×). The same latency on three servers: webhooks-cluster.bench.ts.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, type Core, createCore, createKeystore, createManualClock, type Principal, systemClock } from '@presence/core';
import { createLowdbStore, createLowdbWebhookStore } from '@presence/core/lowdb';
import { startWebhookReceiver } from '@presence/core/testing';
import { removeDir, tempDir } from '../src/harness';
import { fmt, percentile, type Row } from './stats';
import { clusterLatency } from './webhooks-cluster.bench';

type Received = { id: string; at: number };

async function receiver() {
  const got: Received[] = [];
  let waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got.push({ id: `${req.url}|${req.headers['webhook-id']}`, at: performance.now() });
      res.writeHead(200).end();
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    async count(n: number) {
      while (got.length < n) await new Promise<void>((r) => waiters.push(r));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function openCore(clock: Clock = systemClock) {
  const dir = tempDir();
  const keystore = createKeystore(randomBytes(32));
  const store = await createLowdbStore({ dataDir: dir, fsync: false, keystore });
  const webhooks = await createLowdbWebhookStore({ dataDir: dir, fsync: false });
  const core = createCore({
    store,
    webhooks,
    keystore,
    clock,
    rateLimit: { limit: 1_000_000, windowMs: 1_000 },
    accountLimits: { webhooks: 100 },
    webhookOptions: { allowPrivate: true },
  });
  const admins: Principal[] = [];
  const account = async (name: string) => {
    const { admin } = await core.accounts.create(name);
    const p = await core.keys.authenticate(admin.secret);
    admins.push(p);
    return p;
  };
  return {
    core,
    account,
    async close() {
      await core.webhooks?.dispatcher.close();
      await webhooks.close();
      await store.close();
      removeDir(dir);
    },
  };
}

const hooks = (core: Core) => {
  if (!core.webhooks) throw new Error('no webhooks');
  return core.webhooks;
};
const say = (core: Core, accountId: string, text: string) =>
  core.events.emit({ accountId, kind: 'live' }, 'message', { text, cause: 'bench' });

async function latency(rows: Row[]) {
  const r = await receiver();
  const c = await openCore();
  try {
    const accounts: Principal[] = [];
    for (let a = 0; a < 10; a++) {
      const p = await c.account(`acct${a}`);
      accounts.push(p);
      for (let e = 0; e < 10; e++) await hooks(c.core).create(p, { url: `${r.url}/a${a}/e${e}` });
    }
    const ms: number[] = [];
    const ROUNDS = 30;
    for (let i = 0; i < ROUNDS; i++) {
      for (const p of accounts) {
        const before = r.got.length;
        const at = performance.now();
        await say(c.core, p.accountId, `m${i}`);
        await r.count(before + 10);
        for (const g of r.got.slice(before)) ms.push(g.at - at);
      }
    }
    rows.push({
      benchmark: `webhooks: event → delivered, 100 endpoints (10 accounts × 10), one server, lowdb (${ms.length} deliveries) p50 / p99`,
      figure: `${fmt(percentile(ms, 50))} / ${fmt(percentile(ms, 99))} ms`,
      target: 'p99 < 100 ms',
    });
  } finally {
    await c.close();
    await r.close();
  }
}

/**
 * A real 60 s outage, on the core's clock (a driven clock: the schedule's minutes are not
 * waited out): events arrive at 10 a second while the receiver answers 503, the endpoint
 * retries on its schedule (5 s, then 5 min), the receiver comes back at 60 s, and at the
 * 5-minute retry the backlog drains. The figure is the drain rate from that retry on.
 */
async function outage(rows: Row[]) {
  const r = await startWebhookReceiver();
  const clock = createManualClock(Date.now());
  const c = await openCore(clock);
  try {
    const p = await c.account('down');
    await hooks(c.core).create(p, { url: r.url });
    r.answer({ status: 503 });
    const OUTAGE_MS = 60_000;
    const EVERY_MS = 100;
    for (let t = 0; t < OUTAGE_MS; t += EVERY_MS) {
      await say(c.core, p.accountId, `o${t}`);
      clock.advance(EVERY_MS);
      await hooks(c.core).dispatcher.tick();
      await hooks(c.core).dispatcher.settled();
    }
    const attempts = r.received.length;
    r.answer({ status: 200 });
    const backlog = OUTAGE_MS / EVERY_MS;
    // The next retry is 5 min after the second failed attempt (at 5 s): come to it and beat.
    clock.advance(5 * 60_000);
    const t0 = performance.now();
    await hooks(c.core).dispatcher.tick();
    while (r.received.length < attempts + backlog) await r.next();
    const s = (performance.now() - t0) / 1000;
    rows.push({
      benchmark: `webhooks: backlog of ${backlog} events from a 60 s receiver outage (${attempts} failed attempts), drained from the 5-min retry, one endpoint, lowdb`,
      figure: `${fmt(backlog / s, 0)} events/s`,
      target: '> 100 events/s',
    });
  } finally {
    await c.close();
    await r.close();
  }
}

/** CPU-ms this process spends over `beats` ticks of the beat, a second apart. */
async function beatCpu(core: Core, beats: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < beats; i++) {
    await hooks(core).dispatcher.tick();
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

async function idle(rows: Row[]) {
  const BEATS = 10;
  const none = await openCore();
  let base: number;
  try {
    await none.account('only');
    base = await beatCpu(none.core, BEATS);
  } finally {
    await none.close();
  }
  const many = await openCore();
  try {
    for (let a = 0; a < 100; a++) {
      const p = await many.account(`idle${a}`);
      for (let e = 0; e < 100; e++) await hooks(many.core).create(p, { url: `http://127.0.0.1:9/a${a}/e${e}` });
    }
    const loaded = await beatCpu(many.core, BEATS);
    rows.push({
      benchmark: `webhooks: CPU of ${BEATS} beats (1 s apart) with 10,000 endpoints on idle accounts vs none, lowdb`,
      figure: `${fmt(loaded, 0)} vs ${fmt(base, 0)} CPU-ms (${fmt(loaded / Math.max(base, 1), 2)}×)`,
      target: 'within 2×',
    });
  } finally {
    await many.close();
  }
}

export async function webhooksBenchmarks(rows: Row[]) {
  await latency(rows);
  await outage(rows);
  await clusterLatency(rows);
  await idle(rows);
}
