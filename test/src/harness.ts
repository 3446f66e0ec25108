// Test harness: a real Presence server on a free loopback port in a temporary data dir,
// plain-fetch helpers, and an SSE reader — black-box, over HTTP, like any client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Clock, createManualClock } from '@presence/core';
import { loadConfig, type RunningServer, startServer } from '@presence/server';
import { databaseEnvFor } from './test-database';

export type TestServer = RunningServer & { dataDir: string; live: string; test: string; restart(): Promise<TestServer> };

export function tempDir(prefix = 'presence-test-') {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export async function startTestServer(
  options: {
    dataDir?: string;
    clock?: Clock;
    env?: Record<string, string>;
    heartbeatMs?: number;
    keys?: { live: string; test: string };
    /** Start the embedded devnet (off by default: platform tests need no chain). */
    chain?: boolean;
    /** Run the server's one-second beat at this period (off by default: tests drive it). */
    beatMs?: number;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDir();
  // Under PRESENCE_TEST_STORE=postgres, the data directory's own database (see test-database.ts).
  const database = await databaseEnvFor(dataDir);
  const config = loadConfig({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_HOST: '127.0.0.1', ...database, ...options.env });
  const server = await startServer({
    config,
    clock: options.clock,
    logger: false,
    maintenanceMs: 0,
    standingMs: options.beatMs ?? 0,
    chain: options.chain ?? false,
    heartbeatMs: options.heartbeatMs,
  });
  const keys = server.bootstrap ?? options.keys;
  if (!keys) throw new Error('no keys: pass the keys from the first start');
  const self: TestServer = {
    ...server,
    dataDir,
    live: keys.live,
    test: keys.test,
    async restart() {
      await server.close();
      return startTestServer({ ...options, dataDir, keys });
    },
  };
  return self;
}

export function removeDir(dir: string) {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

export { createManualClock };

// biome-ignore lint/suspicious/noExplicitAny: tests read an answer's fields directly; their assertions check its shape
export type Answer = { status: number; headers: Headers; text: string; json: any };

export async function call(
  base: string,
  method: string,
  url: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; idempotencyKey?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + url, { method, headers, body });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, text, json };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read a frame's fields directly; their assertions check its shape
export type SseFrame = { id?: string; event: string; data: any };

/** Opens an SSE stream and collects frames; `until` resolves once a predicate holds. */
export function openStream(base: string, url: string, key: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  /** Ids of id-only frames (the server's starting cursor on live-only streams). */
  const cursors: number[] = [];
  let waiters: { pred: () => boolean; resolve: () => void }[] = [];
  let ended = false;
  let status = 0;
  const check = () => {
    waiters = waiters.filter((w) => {
      if (w.pred()) {
        w.resolve();
        return false;
      }
      return true;
    });
  };
  const done = (async () => {
    try {
      const res = await fetch(base + url, { headers: { authorization: `Bearer ${key}`, ...headers }, signal: controller.signal });
      status = res.status;
      check();
      if (!res.body) return;
      const decoder = new TextDecoder();
      let buf = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let i = buf.indexOf('\n\n');
        while (i >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const frame: Partial<SseFrame> & { dataLines: string[] } = { dataLines: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('event: ')) frame.event = line.slice(7);
            else if (line.startsWith('data: ')) frame.dataLines.push(line.slice(6));
          }
          if (!frame.event && frame.id && frame.dataLines.length === 0) cursors.push(Number(frame.id));
          if (frame.event) frames.push({ id: frame.id, event: frame.event, data: JSON.parse(frame.dataLines.join('\n')) });
          i = buf.indexOf('\n\n');
        }
        check();
      }
    } catch {
      // aborted or dropped
    } finally {
      ended = true;
      check();
    }
  })();
  return {
    frames,
    comments,
    cursors,
    get status() {
      return status;
    },
    get ended() {
      return ended;
    },
    until(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
      if (pred()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`stream condition not met in ${timeoutMs} ms; got ${frames.length} frames`)),
          timeoutMs,
        );
        waiters.push({
          pred,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
      });
    },
    close() {
      controller.abort();
      return done;
    },
    done,
  };
}
