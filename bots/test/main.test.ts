// The presence-bots binary: configuration errors are one clear line and a non-zero exit,
// a bot that cannot start says why without printing its token, and SIGINT/SIGTERM end the
// process whatever the Telegram Bot API is doing (refusing, silent, hung mid-start or mid-run);
// the data directory is private once it runs.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from './helpers/presence';
import { startTelegramApi } from './helpers/telegram-api';
import { waitFor } from './helpers/wait';

const bin = path.resolve(import.meta.dirname, '../bin/presence-bots.js');
const dataDir = tempDir('presence-bots-main-');
const TOKEN = '555:the-telegram-token-under-test';
/** Signal → exit, per test, for the report (BOTS_TEST_LOGS=1 prints them). */
const stopTimes: string[] = [];
afterAll(() => {
  if (process.env.BOTS_TEST_LOGS) console.log(stopTimes.join('\n'));
  removeDir(dataDir);
});

type Run = { child: ChildProcess; stderr: () => string; exited: Promise<{ code: number | null; stdout: string; stderr: string }> };

function startBin(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [bin], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PRESENCE_BOTS_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 25_000, // a hung process must not outlive the test
    killSignal: 'SIGKILL',
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, stderr: () => stderr, exited };
}

const runBin = (env: Record<string, string>) => startBin(env).exited;

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Waits for `line` on stderr, sends `signal`, and returns how the process ended (and how fast). */
async function stopWith(run: Run, signal: NodeJS.Signals, line: RegExp, label: string) {
  await waitFor(() => line.test(run.stderr()), { what: `${line} on stderr`, timeoutMs: 20_000 });
  const sent = Date.now();
  run.child.kill(signal);
  const r = await run.exited;
  stopTimes.push(`${label}: ${signal} → exit in ${Date.now() - sent} ms`);
  expect(alive(run.child.pid as number)).toBe(false);
  expect(r.stderr).toContain(`${signal}: stopping`);
  expect(r.stderr + r.stdout).not.toContain(TOKEN);
  return r;
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A TCP server on 127.0.0.1 that takes connections and never says a word. */
async function silentServer() {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    accepted: () => sockets.size,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('presence-bots', () => {
  it('with neither token set: one clear line, exit code 2', async () => {
    const r = await runBin({});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'presence-bots: no bot to run: set TELEGRAM_BOT_TOKEN and/or DISCORD_BOT_TOKEN (see bots/README.md)',
    ]);
  });

  it('a bot whose token the platform refuses fails the start without printing the token', async () => {
    const tg = await startTelegramApi({ token: '1:the-only-valid-token' });
    try {
      const r = await runBin({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: tg.url });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/presence-bots could not start: .*401/);
      expect(r.stderr + r.stdout).not.toContain(TOKEN);
    } finally {
      await tg.close();
    }
  });

  it('a Bot API that refuses connections fails the start with one line and exit code 1', async () => {
    const root = `http://127.0.0.1:${await closedPort()}`;
    const run = startBin({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: root });
    const r = await run.exited;
    expect(r.code).toBe(1);
    // Not a terminal: JSON lines, one object each.
    const entries = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; time: number; msg: string });
    expect(entries.every((e) => typeof e.time === 'number' && typeof e.msg === 'string')).toBe(true);
    const errors = entries.filter((e) => e.level === 50).map((e) => e.msg);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(`presence-bots could not start: the Telegram Bot API at ${root} cannot be reached \\(connect ECONNREFUSED`),
    );
    expect(r.stderr + r.stdout).not.toContain(TOKEN);
    expect(alive(run.child.pid as number)).toBe(false);
  });

  describe('a Bot API that takes the connection and never answers', () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      it(`says so at once, and ${signal} stops it while getMe is in flight`, async () => {
        const api = await silentServer();
        try {
          const run = startBin({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: api.url });
          await waitFor(() => api.accepted() > 0, { what: 'the getMe connection', timeoutMs: 20_000 });
          const r = await stopWith(run, signal, /Telegram: reaching the Bot API/, 'silent Bot API, getMe in flight');
          expect(r.code).toBe(0);
          expect(r.stderr).toContain('stopped before the bots were up');
        } finally {
          await api.close();
        }
      });
    }

    it('with no signal, the start fails by itself with one line and exit code 1', async () => {
      const api = await silentServer();
      try {
        const r = await runBin({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: api.url });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`presence-bots could not start: the Telegram Bot API at ${api.url} did not answer within 10 s`);
      } finally {
        await api.close();
      }
    });
  });

  it('makes a data directory left 0755 with 0644 files private at start (0700, files 0600), and says so', async () => {
    const dir = path.join(dataDir, 'loose');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755); // whatever the umask
    writeFileSync(path.join(dir, 'links.json'), '{"version":1,"links":{},"cards":{}}\n', { mode: 0o644 });
    writeFileSync(path.join(dir, 'links.key'), `${'ab'.repeat(32)}\n`, { mode: 0o644 });
    const tg = await startTelegramApi({ token: TOKEN });
    try {
      const run = startBin({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: tg.url, PRESENCE_BOTS_DATA_DIR: dir });
      await waitFor(() => /presence-bots running/.test(run.stderr()), { what: 'the running line', timeoutMs: 20_000 });
      const modeOf = (f: string) => statSync(path.join(dir, f)).mode & 0o777;
      // links.json, tightened first, is then carried over to links.jsonl and removed.
      expect([modeOf('.'), modeOf('links.jsonl'), modeOf('links.key'), modeOf('bots.pid')]).toEqual([0o700, 0o600, 0o600, 0o600]);
      expect(existsSync(path.join(dir, 'links.json'))).toBe(false);
      const r = await stopWith(run, 'SIGINT', /presence-bots running/, 'loose data dir');
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/"msg":"made the data directory private","path":".*loose","was":"0755","now":"0700"/);
      expect(r.stderr).toMatch(/"msg":"made a data file private","path":".*links\.json","was":"0644","now":"0600"/);
    } finally {
      await tg.close();
    }
  });

  it('SIGINT stops it while grammY sets up polling (deleteWebhook hung)', async () => {
    const tg = await startTelegramApi({ token: TOKEN });
    tg.hang('deleteWebhook');
    try {
      const run = startBin({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: tg.url });
      await waitFor(() => tg.calls.some((c) => c.method === 'deleteWebhook'), { what: 'deleteWebhook', timeoutMs: 20_000 });
      const r = await stopWith(run, 'SIGINT', /reaching the Bot API/, 'deleteWebhook hung');
      expect(r.code).toBe(0);
    } finally {
      await tg.close();
    }
  });

  it('SIGINT stops a running bot whose Bot API stopped answering (long poll and the confirming getUpdates hung)', async () => {
    const tg = await startTelegramApi({ token: TOKEN });
    try {
      const run = startBin({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: tg.url });
      await waitFor(() => /presence-bots running/.test(run.stderr()), { what: 'the running line', timeoutMs: 20_000 });
      tg.hang('getUpdates');
      const r = await stopWith(run, 'SIGINT', /presence-bots running/, 'running, Bot API hung');
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('could not confirm the last Telegram updates');
    } finally {
      await tg.close();
    }
  });
});
