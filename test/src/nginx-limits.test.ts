// deploy/nginx/presence.conf's own per-client limit, for real: the servers behind it trust it
// (PRESENCE_TRUSTED_PROXIES) and so no longer cap its address, so nginx caps each client's
// requests in progress at 100 — open event streams included, idle connections not — and
// answers past it with the problem+json a server would give (429, connections_per_address).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, openStream, removeDir, startTestServer, type TestServer } from './harness';
import { type Nginx, runPresenceNginx } from './nginx';
import { until } from './wallet-helpers';

let s: TestServer;
let nginx: Nginx;

beforeAll(async () => {
  s = await startTestServer({ env: { PRESENCE_TRUSTED_PROXIES: '127.0.0.1' } });
  const host = new URL(s.url).host;
  // The site's three upstreams all point at the one server.
  nginx = await runPresenceNginx([host, host, host]);
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await s?.close();
  if (s) removeDir(s.dataDir);
});

describe('deploy/nginx/presence.conf limits each client address', () => {
  it('to 100 requests in progress: with 100 event streams open the next request is 429 problem+json, and one closed lets it in', async () => {
    // 100 streams are one account's whole share (20 per key): the servers' caps let them all open.
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) {
      const made = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: `streams-${i}`, scopes: ['talk'] } });
      expect(made.status).toBe(201);
      keys.push(made.json.secret as string);
    }
    const streams = keys.flatMap((key) => Array.from({ length: 20 }, () => openStream(nginx.url, '/v1/events', key)));
    try {
      for (const st of streams) await st.until(() => st.status === 200 && st.cursors.length === 1);
      const refused = await call(nginx.url, 'GET', '/v1/health');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.json).toMatchObject({ type: 'rate_limited', status: 429, limit: 'connections_per_address' });
      // The server itself, asked directly, still answers: the limit is nginx's.
      expect((await call(s.url, 'GET', '/v1/health')).status).toBe(200);

      await streams.pop()?.close();
      await until(async () => (await call(nginx.url, 'GET', '/v1/health')).status === 200, 10_000, 'a request let in again');
    } finally {
      await Promise.all(streams.map((st) => st.close()));
    }
  });
});
