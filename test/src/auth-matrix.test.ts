// Every keyed /v1 route × (no key, malformed, unknown, revoked, expired-after-rotation, a key
// holding every scope but the one needed, a key holding only that one) answers the right
// status and problem type; every answer to a valid key carries Presence-Mode and the
// RateLimit-* headers. One server without a chain: routes whose happy path needs the chain
// (or more setup) only have to get past auth with the right scope (not 401/403).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call, createManualClock, openStream, removeDir, startTestServer, type TestServer } from './harness';

const ALL_SCOPES = ['talk', 'memory:read', 'memory:write', 'wallet:read', 'wallet:act', 'admin'] as const;
type Scope = (typeof ALL_SCOPES)[number];
type Need = Scope | 'key' | { anyOf: Scope[] };

type Ctx = { freshKey(scopes: Scope[]): Promise<{ id: string; secret: string }> };
type Route = {
  method: string;
  /** The path; `target` is a key id to act on (a fresh one in the right-scope case). */
  url: string | ((target: string) => string);
  need: Need;
  body?: unknown;
  /** The status with the right scope, when the happy path needs no more setup; else just not 401/403. */
  ok?: number;
  /** The route revokes or rotates a key: the right-scope case acts on a fresh one. */
  target?: 'key' | 'self';
  /** An SSE stream: opened and closed instead of read whole. */
  stream?: boolean;
};

const NO_KEY_ID = 'key_0000000000000000';

const routes: Route[] = [
  { method: 'GET', url: '/v1/presence/me', need: 'key', ok: 200 },
  { method: 'PATCH', url: '/v1/presence/me', need: 'admin', body: { name: 'Ada' }, ok: 200 },
  { method: 'GET', url: '/v1/keys', need: 'admin', ok: 200 },
  { method: 'POST', url: '/v1/keys', need: 'admin', body: { name: 'x', scopes: ['talk'] }, ok: 201 },
  { method: 'POST', url: (id) => `/v1/keys/${id}/rotate`, need: 'admin', body: { grace_s: 60 }, ok: 200, target: 'key' },
  { method: 'DELETE', url: '/v1/keys/self', need: 'key', ok: 200, target: 'self' },
  { method: 'DELETE', url: (id) => `/v1/keys/${id}`, need: 'admin', ok: 200, target: 'key' },
  { method: 'POST', url: '/v1/links', need: 'admin', body: {}, ok: 201 },
  { method: 'GET', url: '/v1/memory', need: 'memory:read', ok: 200 },
  { method: 'POST', url: '/v1/memory/pin', need: 'memory:write', body: { key: 'token:WETH' }, ok: 200 },
  { method: 'DELETE', url: '/v1/memory/token:WETH', need: 'memory:write' },
  { method: 'GET', url: '/v1/events', need: { anyOf: ['talk', 'memory:read', 'wallet:read', 'admin'] }, ok: 200, stream: true },
  // A public address by IP (no DNS) for a type no request here makes: nothing is ever sent off this machine.
  {
    method: 'POST',
    url: '/v1/webhooks',
    need: 'admin',
    body: { url: 'https://93.184.215.14/hook', events: ['webhook_disabled'] },
    ok: 201,
  },
  { method: 'GET', url: '/v1/webhooks', need: 'admin', ok: 200 },
  { method: 'GET', url: '/v1/webhooks/wh_0000000000000000', need: 'admin', ok: 404 },
  { method: 'PATCH', url: '/v1/webhooks/wh_0000000000000000', need: 'admin', body: { description: 'x' }, ok: 404 },
  { method: 'DELETE', url: '/v1/webhooks/wh_0000000000000000', need: 'admin', ok: 404 },
  { method: 'POST', url: '/v1/webhooks/wh_0000000000000000/rotate-secret', need: 'admin', ok: 404 },
  { method: 'POST', url: '/v1/webhooks/wh_0000000000000000/test', need: 'admin', ok: 404 },
  { method: 'GET', url: '/v1/webhooks/wh_0000000000000000/deliveries', need: 'admin', ok: 404 },
  { method: 'POST', url: '/v1/webhooks/wh_0000000000000000/replay', need: 'admin', body: { since_event_id: 0 }, ok: 404 },
  { method: 'GET', url: '/v1/messages', need: 'talk', ok: 200 },
  { method: 'POST', url: '/v1/messages', need: 'talk', body: { text: 'hello' }, ok: 200 },
  { method: 'GET', url: '/v1/standing', need: 'talk', ok: 200 },
  { method: 'DELETE', url: '/v1/standing/st_000000000000', need: 'talk', ok: 404 },
  { method: 'GET', url: '/v1/wallet', need: 'wallet:read' },
  { method: 'GET', url: '/v1/wallet/policy', need: 'wallet:read', ok: 200 },
  {
    method: 'PUT',
    url: '/v1/wallet/policy',
    need: 'admin',
    body: {
      per_tx_cap: '50 USD',
      confirm_over: '10 USD',
      daily_cap: '200 USD',
      deny: [{ action: 'send' }],
      withdraw_allowlist: [],
      max_slippage_bps: 100,
      confirm_timeout_s: 600,
    },
  },
  { method: 'POST', url: '/v1/wallet/intent', need: 'wallet:act', body: { do: 'swap 5 USDC for WETH' } },
  { method: 'POST', url: '/v1/wallet/withdraw', need: 'admin', body: { to: `0x${'1'.repeat(40)}`, amount: '1 USDC' } },
  { method: 'GET', url: '/v1/confirm?status=held', need: 'wallet:read' },
  { method: 'GET', url: '/v1/confirm/cf_0000000000000000', need: 'wallet:read' },
  { method: 'POST', url: '/v1/confirm/cf_0000000000000000', need: 'wallet:act', body: { approve: true } },
  { method: 'POST', url: '/v1/passkeys/enroll', need: 'admin', body: {}, ok: 201 },
  { method: 'GET', url: '/v1/passkeys', need: 'wallet:read', ok: 200 },
  { method: 'DELETE', url: '/v1/passkeys/pk_0000000000000000', need: 'admin', ok: 404 },
  { method: 'GET', url: '/v1/chain/tokens', need: 'wallet:read' },
  { method: 'GET', url: '/v1/chain/pools?pair=WETH-USDC', need: 'wallet:read' },
  { method: 'GET', url: '/v1/chain/positions', need: 'wallet:read' },
  { method: 'GET', url: '/v1/chain/safety?token=SCAM', need: 'wallet:read' },
];

const needed = (need: Need): Scope[] => (need === 'key' ? [] : typeof need === 'string' ? [need] : need.anyOf);
const label = (need: Need) => (typeof need === 'string' ? need : need.anyOf.join(' | '));

describe('auth matrix', () => {
  const clock = createManualClock(Date.now());
  let s: TestServer;
  const keys: Record<string, string> = {};
  const ctx: Ctx = {
    async freshKey(scopes) {
      const r = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: `k${Object.keys(keys).length}`, scopes } });
      expect(r.status).toBe(201);
      return r.json as { id: string; secret: string };
    },
  };
  const keyFor = async (name: string, scopes: Scope[]) => {
    keys[name] ??= (await ctx.freshKey(scopes)).secret;
    return keys[name] as string;
  };

  beforeAll(async () => {
    // Every route meets every kind of wrong key from one address: more than the failed-auth limit allows.
    s = await startTestServer({ clock, env: { PRESENCE_RATE_LIMIT: '100000/60s', PRESENCE_AUTH_FAIL_LIMIT: '100000/60s' } });
    const revoked = await ctx.freshKey([...ALL_SCOPES]);
    expect((await call(s.url, 'DELETE', `/v1/keys/${revoked.id}`, { key: s.live })).status).toBe(200);
    keys.revoked = revoked.secret;
    const rotated = await ctx.freshKey([...ALL_SCOPES]);
    const r = await call(s.url, 'POST', `/v1/keys/${rotated.id}/rotate`, { key: s.live, body: { grace_s: 60 } });
    expect(r.status).toBe(200);
    keys.expired = rotated.secret;
    clock.advance(61_000);
  });
  afterAll(async () => {
    await s.close();
    removeDir(s.dataDir);
  });

  const send = (route: Route, key?: string, headers?: Record<string, string>, target = NO_KEY_ID) =>
    call(s.url, route.method, typeof route.url === 'string' ? route.url : route.url(target), {
      key,
      body: route.body,
      headers,
    });
  const keyed = (r: Answer) => {
    expect(r.headers.get('presence-mode')).toBe('live');
    expect(r.headers.get('ratelimit-limit')).toBe('100000');
    expect(Number(r.headers.get('ratelimit-remaining'))).toBeGreaterThan(0);
    expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  };

  for (const route of routes) {
    const path = typeof route.url === 'string' ? route.url : route.url('{id}');
    describe(`${route.method} ${path} (${label(route.need)})`, () => {
      it('401 auth without a key', async () => {
        const r = await send(route);
        expect([r.status, r.json?.type]).toEqual([401, 'auth']);
        expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      });
      it('401 auth for a malformed header, a malformed key and an unknown key', async () => {
        const malformed = await send(route, undefined, { authorization: 'Basic abc' });
        expect([malformed.status, malformed.json?.type]).toEqual([401, 'auth']);
        expect((await send(route, 'not-a-key')).status).toBe(401);
        expect((await send(route, `prs_live_${'x'.repeat(40)}`)).status).toBe(401);
      });
      it('401 auth for a revoked key', async () => {
        const r = await send(route, keys.revoked);
        expect([r.status, r.json?.detail]).toEqual([401, 'this key was revoked']);
      });
      it('401 auth for a rotated key after its grace window', async () => {
        const r = await send(route, keys.expired);
        expect(r.status).toBe(401);
        expect(r.json?.detail).toMatch(/grace window/);
      });
      if (route.need !== 'key') {
        const lacking = needed(route.need);
        it(`403 scope naming ${label(route.need)} for a key with every other scope`, async () => {
          const others = ALL_SCOPES.filter((x) => !lacking.includes(x));
          const r = await send(route, await keyFor(`without ${label(route.need)}`, others));
          expect([r.status, r.json?.type]).toEqual([403, 'scope']);
          for (const scope of lacking) expect(r.json.detail).toContain(scope);
          keyed(r);
        });
      }
      // `key` routes take any key: one holding a single unrelated scope shows it.
      const withScopes: Scope[][] = route.need === 'key' ? [['memory:read']] : needed(route.need).map((x) => [x]);
      for (const scopes of withScopes) {
        it(`gets past auth with a key holding only ${scopes.join(', ')}`, async () => {
          let key = await keyFor(`only ${scopes.join(',')}`, scopes);
          let target = NO_KEY_ID;
          if (route.target === 'self') key = (await ctx.freshKey(scopes)).secret;
          if (route.target === 'key') target = (await ctx.freshKey(['talk'])).id;
          if (route.stream) {
            const st = openStream(s.url, path, key);
            await st.until(() => st.status !== 0);
            expect(st.status).toBe(200);
            await st.close();
            return;
          }
          const r = await send(route, key, undefined, target);
          if (route.ok !== undefined) expect(r.status, r.text).toBe(route.ok);
          else expect([401, 403], r.text).not.toContain(r.status);
          keyed(r);
        });
      }
    });
  }

  it('covers every keyed route the server documents', async () => {
    const doc = await call(s.url, 'GET', '/v1/openapi.json');
    // Key-authenticated routes: not the public ones (security: []), nor those a surface token
    // calls on its own (security names surfaceToken; surfaces.test.ts covers them).
    const keyed = (op: { security?: unknown[] }) =>
      !(Array.isArray(op.security) && (op.security.length === 0 || JSON.stringify(op.security).includes('surfaceToken')));
    const documented = Object.entries(doc.json.paths as Record<string, Record<string, { security?: unknown[] }>>)
      .flatMap(([p, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => keyed(op))
          .map(([m]) => `${m.toUpperCase()} ${p.replace(/\{[^}]+\}/g, '{}')}`),
      )
      .filter((r) => r !== 'GET /v1/health');
    const tested = new Set(
      routes.map((r) => {
        const p = (typeof r.url === 'string' ? r.url : r.url('{}')).split('?')[0] as string;
        return `${r.method} ${p}`
          .replace(/^((GET|POST) \/v1\/confirm\/)cf_\w+$/, '$1{}')
          .replace(/^(DELETE \/v1\/standing\/)st_\w+$/, '$1{}')
          .replace(/^(DELETE \/v1\/passkeys\/)pk_\w+$/, '$1{}')
          .replace(/^(DELETE \/v1\/memory\/).+$/, '$1{}')
          .replace(/^(\w+ \/v1\/webhooks\/)wh_\w+/, '$1{}');
      }),
    );
    expect(documented.filter((r) => !tested.has(r))).toEqual([]);
  });

  it('allow_act on a message also needs wallet:act', async () => {
    const talker = await keyFor('only talk', ['talk']);
    const r = await call(s.url, 'POST', '/v1/messages', { key: talker, body: { text: 'buy $5 of WETH', allow_act: true } });
    expect([r.status, r.json.type]).toEqual([403, 'scope']);
    expect(r.json.detail).toContain('wallet:act');
  });

  it('health, the OpenAPI document and redeeming a link need no key', async () => {
    expect((await call(s.url, 'GET', '/v1/health')).json.ok).toBe(true);
    const doc = await call(s.url, 'GET', '/v1/openapi.json');
    expect(doc.json.openapi).toBe('3.1.0');
    const redeem = await call(s.url, 'POST', '/v1/links/ABCDEFGH/redeem', { body: { surface: 'telegram', user_id: '1', name: 'a' } });
    expect([redeem.status, redeem.json.type]).toEqual([404, 'not_found']);
  });
});
