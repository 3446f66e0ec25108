// Test keys on many servers, without sticky sessions: the test-key overlay is shared through
// PostgreSQL (table test_overlays), so a test key's writes through one server are what it
// reads through any other — memory, preferences, the thread — and a live key still sees none
// of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './cluster';
import { call } from './harness';
import { freshDatabaseEnv } from './test-database';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster({ database: (await freshDatabaseEnv()) as never, servers: 3 });
}, 180_000);
afterAll(async () => {
  await c?.stop();
}, 60_000);

const url = (i: number) => c.servers[i]?.url as string;

describe('a test key behind three servers', () => {
  it('reads on every server what it wrote through one, and a live key sees none of it', async () => {
    const pin = await call(url(0), 'POST', '/v1/memory/pin', { key: c.test, body: { key: 'topic:sandbox', note: 'test only' } });
    expect(pin.status, pin.text).toBe(200);
    for (const i of [0, 1, 2]) {
      const memory = await call(url(i), 'GET', '/v1/memory', { key: c.test });
      expect(
        memory.json.pinned.map((m: { key: string }) => m.key),
        `server ${i + 1}`,
      ).toContain('topic:sandbox');
    }
    const live = await call(url(1), 'GET', '/v1/memory', { key: c.live });
    expect(live.json.pinned.map((m: { key: string }) => m.key)).not.toContain('topic:sandbox');

    const patch = await call(url(1), 'PATCH', '/v1/presence/me', { key: c.test, body: { preferences: { tone: 'brief' } } });
    expect(patch.status, patch.text).toBe(200);
    for (const i of [0, 2]) {
      expect((await call(url(i), 'GET', '/v1/presence/me', { key: c.test })).json.preferences).toMatchObject({ tone: 'brief' });
    }
    expect((await call(url(0), 'GET', '/v1/presence/me', { key: c.live })).json.preferences?.tone).toBeUndefined();
  });

  it('keeps one thread across servers: turns through two servers, read in order through the third', async () => {
    const first = await call(url(2), 'POST', '/v1/messages', { key: c.test, body: { text: 'remember that I prefer DAI' } });
    expect(first.status, first.text).toBe(200);
    const second = await call(url(1), 'POST', '/v1/messages', { key: c.test, body: { text: 'what do you remember' } });
    expect(second.status, second.text).toBe(200);
    const thread = await call(url(0), 'GET', '/v1/messages?limit=5', { key: c.test });
    expect(thread.status).toBe(200);
    const text = JSON.stringify(thread.json);
    expect(text.indexOf('remember that I prefer DAI')).toBeGreaterThan(-1);
    expect(text.indexOf('what do you remember')).toBeGreaterThan(text.indexOf('remember that I prefer DAI'));
    // The live thread has neither.
    expect(JSON.stringify((await call(url(0), 'GET', '/v1/messages?limit=5', { key: c.live })).json)).not.toContain('prefer DAI');
  });
});
