// Every keyed route × (no key, malformed, unknown, revoked, expired-after-rotation, missing
// scope, right scope) answers the right status and problem type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, removeDir, startTestServer, type TestServer } from './harness';

type Route = { method: string; url: string; scope: string | null; body?: unknown };

const routes: Route[] = [
  { method: 'GET', url: '/v1/presence/me', scope: null },
  { method: 'PATCH', url: '/v1/presence/me', scope: 'admin', body: { name: 'Ada' } },
  { method: 'GET', url: '/v1/keys', scope: 'admin' },
  { method: 'POST', url: '/v1/keys', scope: 'admin', body: { name: 'x', scopes: ['talk'] } },
  { method: 'GET', url: '/v1/memory', scope: 'memory:read' },
  { method: 'POST', url: '/v1/memory/pin', scope: 'memory:write', body: { key: 'token:WETH' } },
  { method: 'DELETE', url: '/v1/memory/token:WETH', scope: 'memory:write' },
];

describe('auth matrix', () => {
  const clock = createManualClock(Date.now());
  let s: TestServer;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    s = await startTestServer({ clock });
    const mk = async (name: string, scopes: string[]) => {
      const r = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name, scopes } });
      expect(r.status).toBe(201);
      return r.json as { id: string; secret: string };
    };
    const revoked = await mk('revoked', ['admin', 'talk', 'memory:read', 'memory:write']);
    expect((await call(s.url, 'DELETE', `/v1/keys/${revoked.id}`, { key: s.live })).status).toBe(200);
    keys.revoked = revoked.secret;
    const rotated = await mk('rotated', ['admin', 'talk', 'memory:read', 'memory:write']);
    const r = await call(s.url, 'POST', `/v1/keys/${rotated.id}/rotate`, { key: s.live, body: { grace_s: 60 } });
    expect(r.status).toBe(200);
    keys.expired = rotated.secret;
    clock.advance(61_000);
    keys.none = (await mk('talk-only', ['talk'])).secret;
  });
  afterAll(async () => {
    await s.close();
    removeDir(s.dataDir);
  });

  for (const route of routes) {
    describe(`${route.method} ${route.url}`, () => {
      const send = (key?: string, headers?: Record<string, string>) =>
        call(s.url, route.method, route.url, {
          ...(key ? { key } : {}),
          ...(route.body ? { body: route.body } : {}),
          ...(headers ? { headers } : {}),
        });

      it('401 auth without a key', async () => {
        const r = await send();
        expect([r.status, r.json.type]).toEqual([401, 'auth']);
        expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      });
      it('401 auth for a malformed header and a malformed key', async () => {
        expect((await send(undefined, { authorization: 'Basic abc' })).json.type).toBe('auth');
        expect((await send('not-a-key')).status).toBe(401);
      });
      it('401 auth for an unknown key', async () => {
        expect((await send(`prs_live_${'x'.repeat(40)}`)).status).toBe(401);
      });
      it('401 auth for a revoked key', async () => {
        const r = await send(keys.revoked);
        expect([r.status, r.json.detail]).toEqual([401, 'this key was revoked']);
      });
      it('401 auth for a rotated key after its grace window', async () => {
        const r = await send(keys.expired);
        expect(r.status).toBe(401);
        expect(r.json.detail).toMatch(/grace window/);
      });
      if (route.scope && route.scope !== 'talk') {
        it(`403 scope naming ${route.scope} for a key without it`, async () => {
          const r = await send(keys.none);
          expect([r.status, r.json.type]).toEqual([403, 'scope']);
          expect(r.json.detail).toContain(route.scope);
        });
      }
      it('passes with the right scope', async () => {
        const r = await send(s.live);
        expect(r.status).toBeLessThan(300);
        expect(r.headers.get('presence-mode')).toBe('live');
      });
    });
  }

  it('GET /v1/events needs one of talk, memory:read, wallet:read', async () => {
    const mk = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'admin-only', scopes: ['admin'] } });
    const r = await call(s.url, 'GET', '/v1/events', { key: mk.json.secret });
    expect([r.status, r.json.type]).toEqual([403, 'scope']);
    expect(r.json.detail).toBe('this key lacks talk or memory:read or wallet:read');
    expect((await call(s.url, 'GET', '/v1/events')).status).toBe(401);
  });

  it('health and the OpenAPI document need no key', async () => {
    expect((await call(s.url, 'GET', '/v1/health')).json.ok).toBe(true);
    const doc = await call(s.url, 'GET', '/v1/openapi.json');
    expect(doc.json.openapi).toBe('3.1.0');
    expect(Object.keys(doc.json.paths)).toEqual(expect.arrayContaining(['/v1/presence/me', '/v1/keys', '/v1/memory/pin', '/v1/events']));
  });
});
