// Retries at the edges a real server will not produce on demand: 429 with Retry-After,
// 503, a dropped socket, a hang, and what must never be retried.
import { afterEach, describe, expect, it } from 'vitest';
import { createPresenceClient, PresenceApiError, PresenceNetworkError } from '../src/index';
import { abortableSleep } from '../src/retry';
import { drop, hang, json, problem, startFakeServer } from './helpers/fake-server';

const me = {
  name: 'P',
  route: { model: 'local' },
  memory: { pinned: 0, fading: 0 },
  wallet: { chain: 'devnet', spend: 'guarded' },
  preferences: {},
  mode: 'live',
};
const pin = { key: 'topic:x', tier: 'pinned', note: '', changed: true };

let fake: Awaited<ReturnType<typeof startFakeServer>> | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function client(url: string, extra: Parameters<typeof createPresenceClient>[0] = {}) {
  const sleeps: number[] = [];
  const c = createPresenceClient({
    baseUrl: url,
    token: 'prs_live_x',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...extra,
  });
  return { c, sleeps };
}

describe('retries', () => {
  it('429 then 200: waits Retry-After, then succeeds, reusing the Idempotency-Key', async () => {
    fake = await startFakeServer([problem(429, 'rate_limited', 'slow down', { 'retry-after': '2' }), json(200, pin)]);
    const { c, sleeps } = client(fake.url);
    expect(await c.memory.pin({ key: 'topic:x' })).toMatchObject({ changed: true });
    expect(fake.seen).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
    expect(sleeps[0]).toBeLessThan(2200);
    const [k1, k2] = fake.seen.map((r) => r.headers['idempotency-key']);
    expect(k1).toBeTruthy();
    expect(k2).toBe(k1);
  });

  it('honours Retry-After in real time with the default sleep', async () => {
    fake = await startFakeServer([problem(429, 'rate_limited', 'slow down', { 'retry-after': '1' }), json(200, me)]);
    const c = createPresenceClient({ baseUrl: fake.url, token: 'prs_live_x' });
    const t0 = Date.now();
    expect((await c.presence.me()).name).toBe('P');
    // A lower bound on a real wait the server asked for (the behaviour under test, not a speed
    // claim): a client that did not wait cannot pass, and a slow machine only waits longer.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  });

  it('a Retry-After beyond the limit is not waited out: the typed error carries it', async () => {
    fake = await startFakeServer([problem(429, 'rate_limited', 'slow down', { 'retry-after': '3600' })]);
    const { c, sleeps } = client(fake.url);
    const e = await c.presence.me().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(PresenceApiError);
    expect(e).toMatchObject({ type: 'rate_limited', status: 429, retryAfter: 3600 });
    expect(sleeps).toEqual([]);
  });

  it('503 and a dropped socket are retried with growing, jittered backoff', async () => {
    fake = await startFakeServer([problem(503, 'unavailable', 'busy'), drop, json(200, me)]);
    const { c, sleeps } = client(fake.url);
    expect((await c.presence.me()).name).toBe('P');
    expect(fake.seen).toHaveLength(3);
    // base 250 ms: attempt 0 waits 125..250, attempt 1 waits 250..500 (random 0.5 → 3/4 of the step).
    expect(sleeps).toEqual([188, 375]);
  });

  // Departures from "429, 503 and network errors only", documented in the README: 5xx because
  // the spec says a 5xx is safe to retry with the same Idempotency-Key (the server stores no
  // 5xx answer and its actions are durable), and 409 idempotency_in_progress because it means
  // "the first copy is still running, ask again" (after Retry-After).
  it.each([
    [500, 'internal', {}],
    [502, 'model_unavailable', {}],
    [504, 'unavailable', {}],
    [409, 'idempotency_in_progress', { 'retry-after': '5' }],
  ])('%i %s is retried with the same Idempotency-Key', async (status, type, headers) => {
    fake = await startFakeServer([problem(status, type, 'again', headers), json(200, pin)]);
    const { c, sleeps } = client(fake.url);
    expect(await c.memory.pin({ key: 'topic:x' })).toMatchObject({ changed: true });
    expect(fake.seen).toHaveLength(2);
    const [k1, k2] = fake.seen.map((r) => r.headers['idempotency-key']);
    expect(k1).toBeTruthy();
    expect(k2).toBe(k1);
    if (type === 'idempotency_in_progress') expect(sleeps[0]).toBeGreaterThanOrEqual(5000);
  });

  it('gives up after the retry budget with the last error', async () => {
    fake = await startFakeServer([problem(503, 'unavailable', 'still busy')]);
    const { c } = client(fake.url, { retries: 1 });
    await expect(c.presence.me()).rejects.toMatchObject({ type: 'unavailable', status: 503 });
    expect(fake.seen).toHaveLength(2);
  });

  it.each([
    [400, 'invalid_request'],
    [401, 'auth'],
    [403, 'scope'],
    [404, 'not_found'],
    [409, 'policy_block'],
    [409, 'confirm_resolved'],
    [413, 'payload_too_large'],
    [422, 'idempotency_mismatch'],
  ])('%i %s is never retried', async (status, type) => {
    fake = await startFakeServer([problem(status, type, 'no'), json(200, me)]);
    const { c } = client(fake.url);
    await expect(c.presence.me()).rejects.toMatchObject({ type, status });
    expect(fake.seen).toHaveLength(1);
  });

  // The type comes from the protocol's catalogue, the table the server answers from.
  it.each([
    [502, 'model_unavailable'],
    [503, 'unavailable'],
    [504, 'unavailable'],
    [409, 'conflict'],
    [422, 'http_error'],
  ])('a non-problem %i error body is still a typed error: %s', async (status, type) => {
    fake = await startFakeServer([
      (_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end('<html>Bad gateway</html>');
      },
    ]);
    const { c } = client(fake.url, { retries: 0 });
    await expect(c.presence.me()).rejects.toMatchObject({ type, status, detail: '<html>Bad gateway</html>' });
  });

  it('a hang becomes a timeout network error (per attempt), then retries', async () => {
    fake = await startFakeServer([hang, json(200, me)]);
    const { c } = client(fake.url, { timeoutMs: 150 });
    expect((await c.presence.me()).name).toBe('P');
    const { c: noRetry } = client(fake.url, { timeoutMs: 150, retries: 0 });
    fake.seen.length = 0;
    const e = await noRetry.presence.me().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(PresenceNetworkError);
    expect(e).toMatchObject({ code: 'timeout' });
  });

  it('a refused connection is a network error', async () => {
    const { c } = client('http://127.0.0.1:9', { retries: 1 });
    const e = await c.presence.me().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(PresenceNetworkError);
    expect(e).toMatchObject({ code: 'network' });
  });

  it('an answer that does not match the schema is a protocol error, not retried', async () => {
    fake = await startFakeServer([json(200, { name: 1 })]);
    const { c } = client(fake.url);
    await expect(c.presence.me()).rejects.toMatchObject({ kind: 'protocol', status: 200 });
    expect(fake.seen).toHaveLength(1);
  });

  it('aborting during a backoff wait stops at once', async () => {
    fake = await startFakeServer([problem(503, 'unavailable', 'busy')]);
    const ctl = new AbortController();
    // The default sleep, watched: the abort comes once the client is in its backoff, and the
    // wait must end by the abort, not by its timer (ten minutes: a missed abort hangs the test).
    let backingOff!: () => void;
    const inBackoff = new Promise<void>((r) => {
      backingOff = r;
    });
    let ended: 'timer' | 'abort' | null = null;
    const sleep = (ms: number, signal?: AbortSignal) => {
      backingOff();
      return abortableSleep(ms, signal).then(
        () => {
          ended = 'timer';
        },
        (e: unknown) => {
          ended = 'abort';
          throw e;
        },
      );
    };
    const c = createPresenceClient({
      baseUrl: fake.url,
      token: 'prs_live_x',
      sleep,
      retries: { retries: 5, baseDelayMs: 600_000, maxDelayMs: 600_000 },
    });
    const p = c.presence.me({ signal: ctl.signal });
    await inBackoff;
    ctl.abort(new Error('user stopped'));
    await expect(p).rejects.toThrow('user stopped');
    expect(ended).toBe('abort');
    expect(fake.seen).toHaveLength(1);
  });
});
