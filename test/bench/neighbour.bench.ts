// Account isolation (issue 13): one account's writes cost the same whether or not another
// account on the server holds the most it may — preferences at their 16 KiB limit and an
// events log of 100,000 lines, loaded (the neighbour pinned once before the measurement).
// Measured on the real server process (durable writes), sequential requests of the quiet
// account: PUT /v1/wallet/policy (its account document) and POST /v1/memory/pin (its memory
// document and events log). Rounds alternate between a data directory without the neighbour
// and one with it, so drift in the shared machine's load hits both alike.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCore, systemClock } from '@presence/core';
import { createLowdbStore } from '@presence/core/lowdb';
import { preferenceLimits, preferencesOverLimit } from '@presence/protocol';
import { call, removeDir, tempDir } from '../src/harness';
import { spawnServer } from '../src/process';
import { fmt, percentile, type Row } from './stats';

const FAST = { PRESENCE_RATE_LIMIT: '100000000/1s', PRESENCE_LOG_LEVEL: 'silent', PRESENCE_PORT: '0' };
const REQUESTS = 200;
const ROUNDS = 3;
const NEIGHBOUR_EVENTS = 100_000;

/** Preferences exactly at the limits: 50 keys, the whole just under 16 KiB. */
function maximalPreferences() {
  const { keys, keyChars, bytes } = preferenceLimits;
  const key = (i: number) => `${String(i).padStart(2, '0')}${'k'.repeat(keyChars - 2)}`;
  const overhead = Buffer.byteLength(JSON.stringify(Object.fromEntries(Array.from({ length: keys }, (_, i) => [key(i), '']))));
  const valueChars = Math.floor((bytes - overhead) / keys);
  const prefs = Object.fromEntries(Array.from({ length: keys }, (_, i) => [key(i), 'v'.repeat(valueChars)]));
  if (preferencesOverLimit(prefs)) throw new Error('the neighbour’s preferences are over the limits');
  return prefs;
}

/** A data dir with `default` (measured) and, with `neighbour`, a maximal account `heavy`. */
async function seed(dataDir: string, neighbour: boolean) {
  const store = await createLowdbStore({ dataDir, fsync: false });
  const core = createCore({ store, clock: systemClock, rateLimit: { limit: 1, windowMs: 1 } });
  const boot = await core.accounts.bootstrap({ saved: null, save: async () => undefined });
  if (!boot) throw new Error('bootstrap created no account');
  let heavyKey: string | null = null;
  if (neighbour) {
    heavyKey = (await core.accounts.create('heavy')).admin.secret;
    const preferences = maximalPreferences();
    await store.updateAccount('heavy', (a) => ({ ...a, presence: { ...a.presence, preferences } }));
  }
  await store.close();
  if (neighbour) {
    // Written directly, as the server would have (ids 1…n): appending through the API would
    // trip retention (10,000 per account) long before.
    const at = Date.now();
    const stamp = new Date(at).toISOString();
    const lines = Array.from({ length: NEIGHBOUR_EVENTS }, (_, i) =>
      JSON.stringify({ id: i + 1, type: 'memory', data: { key: `topic:s${i}`, tier: 'fading', at: stamp }, at }),
    );
    writeFileSync(path.join(dataDir, 'data', 'events', 'heavy.jsonl'), `${lines.join('\n')}\n`);
  }
  return { live: boot.live, heavyKey };
}

async function timed(n: number, request: (i: number) => Promise<{ status: number; text: string }>) {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await request(i);
    ms.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`answered ${r.status}: ${r.text}`);
  }
  return ms;
}

async function round(neighbour: boolean) {
  const dataDir = tempDir('bench-');
  const { live, heavyKey } = await seed(dataDir, neighbour);
  const server = await spawnServer({ ...FAST, PRESENCE_DATA_DIR: dataDir });
  try {
    if (heavyKey) {
      // The neighbour is live: its documents and its 100,000-line log are loaded.
      const r = await call(server.url, 'POST', '/v1/memory/pin', { key: heavyKey, body: { key: 'topic:heavy', note: 'loaded' } });
      if (r.status !== 200) throw new Error(`neighbour pin answered ${r.status}`);
    }
    const base = (await call(server.url, 'GET', '/v1/wallet/policy', { key: live })).json;
    const { version: _v, updated_at: _u, ...policy } = base;
    await timed(20, (i) => call(server.url, 'POST', '/v1/memory/pin', { key: live, body: { key: 'topic:warm', note: `w${i}` } }));
    const put = await timed(REQUESTS, (i) =>
      call(server.url, 'PUT', '/v1/wallet/policy', { key: live, body: { ...policy, max_slippage_bps: 100 + (i % 50) } }),
    );
    const pin = await timed(REQUESTS, (i) =>
      call(server.url, 'POST', '/v1/memory/pin', { key: live, body: { key: `topic:k${i % 20}`, note: `n${i}` } }),
    );
    return { put: percentile(put, 50), pin: percentile(pin, 50) };
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    removeDir(dataDir);
  }
}

export async function neighbourBenchmarks(rows: Row[]) {
  const alone: { put: number; pin: number }[] = [];
  const beside: { put: number; pin: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    alone.push(await round(false));
    beside.push(await round(true));
  }
  const median = (xs: { put: number; pin: number }[], k: 'put' | 'pin') =>
    percentile(
      xs.map((x) => x[k]),
      50,
    );
  const neighbourText = `beside an account with 16 KiB of preferences and ${NEIGHBOUR_EVENTS.toLocaleString('en')} events`;
  for (const [k, what] of [
    ['put', 'PUT /v1/wallet/policy'],
    ['pin', 'POST /v1/memory/pin'],
  ] as const) {
    rows.push({ benchmark: `${what} p50 ms (durable), alone, median of ${ROUNDS}`, figure: fmt(median(alone, k)), target: '' });
    rows.push({
      benchmark: `${what} p50 ms (durable), ${neighbourText}, median of ${ROUNDS}`,
      figure: fmt(median(beside, k)),
      target: 'equal to alone',
    });
  }
}
