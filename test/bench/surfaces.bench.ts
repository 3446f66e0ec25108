// Surfaces at scale (issue 21): one bot process serving 10,000 linked users (100 accounts of
// 100 linked keys each) through its surface token. Measured: the streams the server holds for
// it (target: 1), the bot's RSS, the time from an event to the Bot API call that delivers it
// (one at a time, well under the send limit), and a burst of 1,000 notifications (one event on
// each of 10 accounts of 100 users) delivered at Telegram's pace (30 a second) with none lost.
// The server runs in this process (events are emitted through its core); the bot is the real
// `presence-bots` binary in a child process against a loopback Bot API.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore, createKeystore, loadOrCreateMasterKey, systemClock } from '@presence/core';
import { createLowdbStore, createLowdbSurfaceStore } from '@presence/core/lowdb';
import { loadConfig, startServer } from '@presence/server';
import { call, removeDir, tempDir } from '../src/harness';
import { sample } from '../src/prometheus-sample';
import { fmt, percentile, type Row } from './stats';

const here = path.dirname(fileURLToPath(import.meta.url));
export const botsBin = path.resolve(here, '../../bots/bin/presence-bots.js');
const ACCOUNTS = 100;
const USERS_PER_ACCOUNT = 100;
const TOKEN = '123456789:AAF-bench-telegram-token';

/** The Bot API calls the bench needs: long polls that find nothing, and sendMessage recorded with its time. */
export async function loopbackBotApi() {
  const sent: { chat: string; text: string; at: number }[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let nextId = 1;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const method = /\/bot[^/]+\/(\w+)$/.exec(req.url ?? '')?.[1] ?? '';
      const p = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      const ok = (result: unknown) => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
      };
      if (method === 'getMe') return ok({ id: 1, is_bot: true, first_name: 'Bench', username: 'bench_bot' });
      if (method === 'getUpdates') return void setTimeout(() => ok([]), Number(p.timeout ?? 0) * 1000).unref();
      if (method === 'sendMessage') {
        sent.push({ chat: String(p.chat_id), text: String(p.text), at: performance.now() });
        return ok({ message_id: nextId++, date: 0, chat: { id: Number(p.chat_id), type: 'private' }, text: p.text });
      }
      return ok(true);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * `accounts` × `users` keys (10,000 by default) linked through one surface, and the bot's link
 * table in `botsDir` naming them (no secrets). Users are numbered from 100,000 (their chat ids).
 * The table is links.jsonl as the bots keep it (one `{k: 'link', id, v}` line per user, as
 * bots/src/surface/link-log.ts writes them), so the bot's start is a steady-state one: not
 * the one-off carry-over of an earlier version's links.json, which rewrites the table.
 */
export async function seedSurface(dataDir: string, botsDir: string, { accounts = ACCOUNTS, users = USERS_PER_ACCOUNT } = {}) {
  const keystore = createKeystore(loadOrCreateMasterKey({ dataDir }));
  const store = await createLowdbStore({ dataDir, fsync: false, keystore });
  const surfaces = await createLowdbSurfaceStore({ dataDir, events: store, fsync: false });
  const core = createCore({
    store,
    surfaces,
    keystore,
    clock: systemClock,
    rateLimit: { limit: 1, windowMs: 1 },
    accountLimits: { keys: users + 1 },
  });
  await core.accounts.bootstrap({ saved: null, save: async () => undefined });
  const { surface, token } = await (core.surfaces as NonNullable<typeof core.surfaces>).create('bench-bot');
  const lines: string[] = [];
  let user = 100_000;
  for (let a = 0; a < accounts; a++) {
    const account = `acct${a}`;
    await core.accounts.create(account);
    for (let u = 0; u < users; u++) {
      const id = String(user++);
      const key = await core.keys.create(account, { kind: 'live', name: `telegram:${id}`, scopes: ['talk', 'wallet:read'] });
      await surfaces.insertSurfaceLink({
        key_id: key.id,
        surface_id: surface.id,
        account_id: account,
        surface_user: id,
        created_at: Date.now(),
        from_event: 0,
        from_seq: 0,
        revoked_at: null,
      });
      const link = {
        surface: 'telegram',
        user_id: id,
        name: id,
        account,
        key_id: key.id,
        key_name: key.name,
        scopes: key.scopes,
        home_chat: id,
        linked_at: new Date().toISOString(),
        last_event_id: 0,
      };
      lines.push(`${JSON.stringify({ k: 'link', id: `telegram:${id}`, v: link })}\n`);
    }
  }
  await surfaces.close();
  await store.close();
  writeFileSync(path.join(botsDir, 'links.jsonl'), lines.join(''), { mode: 0o600 });
  return token;
}

/** A `presence-bots` process's environment: Telegram only, through the surface token, JSON logs. */
export const botEnv = (o: { api: string; presence: string; surfaceToken: string; dataDir: string }, more: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  TELEGRAM_BOT_TOKEN: TOKEN,
  TELEGRAM_API_ROOT: o.api,
  PRESENCE_URL: o.presence,
  PRESENCE_SURFACE_TOKEN: o.surfaceToken,
  PRESENCE_BOTS_DATA_DIR: o.dataDir,
  PRESENCE_LOG_FORMAT: 'json',
  ...more,
});

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

export async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`surfaces bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The server the bots talk to, in this process over the seeded data directory: no chain, no background work, no rate limit in the way. */
export const startSurfacesServer = (dataDir: string) =>
  startServer({
    config: loadConfig({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_HOST: '127.0.0.1', PRESENCE_RATE_LIMIT: '100000000/1s' }),
    logger: false,
    maintenanceMs: 0,
    standingMs: 0,
    chain: false,
  });

export async function surfacesBenchmarks(rows: Row[]) {
  const dataDir = tempDir('bench-surfaces-');
  const botsDir = tempDir('bench-surfaces-bots-');
  const token = await seedSurface(dataDir, botsDir);
  const server = await startSurfacesServer(dataDir);
  const api = await loopbackBotApi();
  let bot: ChildProcess | null = null;
  try {
    const streamsOpen = async () => sample((await call(server.url, 'GET', '/metrics')).text, 'presence_sse_streams_open') ?? Number.NaN;
    const before = await streamsOpen();
    bot = spawn(process.execPath, [botsBin], {
      env: botEnv({ api: api.url, presence: server.url, surfaceToken: token, dataDir: botsDir }),
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const pid = bot.pid as number;
    await until("the bot's surface stream", async () => (await streamsOpen()) > before, 60_000);
    const emit = (account: string, text: string) =>
      server.core.events.emit({ accountId: account, kind: 'live' }, 'message', { text, cause: 'standing:bench' }) as Promise<unknown>;

    // Latency, one notification at a time: acct0's 100 users each get it; the first delivery counts.
    const latencies: number[] = [];
    for (let i = 0; i < 30; i++) {
      const text = `latency ${i}`;
      const t0 = performance.now();
      await emit(`acct${i % ACCOUNTS}`, text);
      await until('a latency probe', () => api.sent.some((s) => s.text === text), 20_000);
      latencies.push((api.sent.find((s) => s.text === text)?.at as number) - t0);
      // Let the paced fan-out of this probe (100 chats) drain before the next one.
      await until('the probe fan-out', () => api.sent.filter((s) => s.text === text).length >= USERS_PER_ACCOUNT, 20_000);
    }

    // A burst: one event on each of 10 fresh accounts = 1,000 notifications.
    const start = api.sent.length;
    const t0 = performance.now();
    for (let a = 90; a < 100; a++) await emit(`acct${a}`, `burst ${a}`);
    await until('the burst delivered', () => api.sent.length - start >= 1_000, 120_000);
    const burst = api.sent.slice(start);
    const took = (performance.now() - t0) / 1000;
    const distinct = new Set(burst.map((s) => `${s.chat}|${s.text}`)).size;
    const streams = (await streamsOpen()) - before;
    const rss = rssMb(pid);
    rows.push(
      { benchmark: 'surfaces: server streams held by one bot process (10,000 users)', figure: String(streams), target: '1' },
      { benchmark: 'surfaces: bot RSS with 10,000 linked users', figure: `${fmt(rss, 0)} MB`, target: '< 300 MB' },
      {
        benchmark: 'surfaces: event → sendMessage latency p50 / p99',
        figure: `${fmt(percentile(latencies, 50), 0)} / ${fmt(percentile(latencies, 99), 0)} ms`,
        target: 'p99 < 1000 ms',
      },
      {
        benchmark: 'surfaces: burst of 1,000 notifications',
        figure: `${distinct} of 1000 delivered once in ${fmt(took, 1)} s (${fmt(1000 / took, 1)}/s)`,
        target: 'all, at ≈ 30/s',
      },
    );
  } finally {
    bot?.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    bot?.kill('SIGKILL');
    await api.close();
    await server.close();
    removeDir(dataDir);
    removeDir(botsDir);
  }
}
