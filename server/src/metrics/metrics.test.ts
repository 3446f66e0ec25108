// GET /metrics through the real app after real traffic: HTTP latency by route pattern and
// status, presence_* series moving with what core did, the open-streams gauge, one registry
// per app, and the optional bearer token.
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});
async function app(options: Parameters<typeof startTestApp>[0] = {}) {
  const t = await startTestApp(options);
  apps.push(t);
  return t;
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const scrape = async (t: TestApp, headers: Record<string, string> = {}) => {
  const r = await t.app.inject({ method: 'GET', url: '/metrics', headers });
  expect(r.statusCode).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return r.body;
};

describe('GET /metrics', () => {
  it('counts requests by route pattern and status, store writes and events after real traffic', async () => {
    const t = await app();
    const before = await scrape(t);
    expect(sample(before, 'presence_events_appended_total', { type: 'memory' })).toBeUndefined();
    const pin = (key: string) =>
      t.app.inject({ method: 'POST', url: '/v1/memory/pin', headers: bearer(t.live), payload: { key, note: 'n' } });
    for (const key of ['topic:a', 'topic:b', 'topic:c']) expect((await pin(key)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: '/v1/memory/topic:a', headers: bearer(t.live) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: '/v1/memory/topic:zz', headers: bearer(t.live) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/v1/memory' })).statusCode).toBe(401);

    const text = await scrape(t);
    const count = (route: string, method: string, status: string) =>
      sample(text, 'http_request_duration_seconds_count', { route, method, status });
    expect(count('/v1/memory/pin', 'POST', '200')).toBe(3);
    // The route's pattern, never the raw URL (which would make one series per memory key).
    expect(count('/v1/memory/:key', 'DELETE', '200')).toBe(1);
    expect(count('/v1/memory/:key', 'DELETE', '404')).toBe(1);
    expect(count('/v1/memory', 'GET', '401')).toBe(1);
    expect(text).not.toContain('topic:a');
    // 3 pins and a forget, one event each, every one of them stored by a timed write.
    expect(sample(text, 'presence_events_appended_total', { type: 'memory', mode: 'live' })).toBe(4);
    expect(sample(text, 'presence_store_write_duration_seconds_count', { operation: 'appendEvent', outcome: 'ok' })).toBe(4);
    // The forget of an unknown key is a write too: its change finds nothing to drop.
    expect(sample(text, 'presence_store_write_duration_seconds_count', { operation: 'changeMemory', outcome: 'ok' })).toBe(5);
    expect(sample(text, 'presence_intents_total')).toBeUndefined(); // no chain, no intent
    expect(sample(text, 'presence_standing_fires_total')).toBe(0);
  });

  it('gauges open streams while they are open, beside their cap', async () => {
    const t = await app();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const ac = new AbortController();
    const res = await fetch(`http://127.0.0.1:${port}/v1/events`, { headers: bearer(t.live), signal: ac.signal });
    expect(res.status).toBe(200);
    const text = await scrape(t);
    expect(sample(text, 'presence_sse_streams_open')).toBe(1);
    expect(sample(text, 'presence_sse_streams_limit')).toBe(1000); // PRESENCE_MAX_STREAMS' default
    // Leadership is the running server's to say (start-server.ts): an app alone leads nothing.
    expect(sample(text, 'presence_leader')).toBe(0);
    ac.abort();
    await expect.poll(async () => sample(await scrape(t), 'presence_sse_streams_open')).toBe(0);
  });

  it('keeps one registry per app: two apps in one process count apart', async () => {
    const a = await app();
    const b = await app();
    await a.app.inject({ method: 'GET', url: '/v1/health' });
    await a.app.inject({ method: 'GET', url: '/v1/health' });
    expect(sample(await scrape(a), 'http_request_duration_seconds_count', { route: '/v1/health' })).toBe(2);
    expect(sample(await scrape(b), 'http_request_duration_seconds_count', { route: '/v1/health' })).toBeUndefined();
  });

  it('needs Authorization: Bearer <PRESENCE_METRICS_TOKEN> when one is set, and no Presence key will do', async () => {
    const token = 'scrape-me-0123456789abcdef';
    const t = await app({ app: { metricsToken: token } });
    for (const headers of [{}, bearer(t.live), bearer(`${token}x`), { authorization: token }]) {
      const r = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      expect([r.statusCode, r.json().type]).toEqual([401, 'auth']);
    }
    expect(sample(await scrape(t, bearer(token)), 'presence_sse_streams_open')).toBe(0);
  });
});
