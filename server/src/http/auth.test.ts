// The auth hook through the real app: who gets in, what a refusal looks like, and the
// headers every keyed answer carries.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

/** A key holding only `talk`, made through the API. */
const makeBot = async () => {
  const made = await t.app.inject({ method: 'POST', url: '/v1/keys', headers: bearer(t.live), payload: { name: 'bot', scopes: ['talk'] } });
  expect(made.statusCode).toBe(201);
  return made.json() as { id: string; secret: string };
};

const me = (headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/v1/presence/me', headers });

describe('auth hook', () => {
  it('answers a keyed route without a key 401 auth, as problem+json, with no rate-limit headers', async () => {
    const r = await me();
    expect(r.statusCode).toBe(401);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json()).toMatchObject({ type: 'auth', status: 401, title: expect.any(String), detail: expect.any(String) });
    expect(r.headers['ratelimit-limit']).toBeUndefined();
  });

  it.each([
    ['a malformed header', { authorization: 'Basic abc' }, /malformed Authorization/],
    ['an unknown key', bearer('prs_live_notakeyatall000000000000000000'), /./],
  ])('refuses %s with 401 auth', async (_what, headers, detail) => {
    const r = await me(headers);
    expect(r.statusCode).toBe(401);
    expect(r.json()).toMatchObject({ type: 'auth' });
    expect(r.json().detail).toMatch(detail);
  });

  it('lets a key in, with Presence-Mode and the RateLimit-* headers', async () => {
    const r = await me(bearer(t.live));
    expect(r.statusCode).toBe(200);
    expect(r.headers).toMatchObject({ 'presence-mode': 'live', 'ratelimit-limit': '120', 'ratelimit-remaining': '119' });
    expect((await me(bearer(t.test))).headers['presence-mode']).toBe('test');
  });

  it('refuses a revoked key at once', async () => {
    const { id, secret } = await makeBot();
    expect((await me(bearer(secret))).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'DELETE', url: `/v1/keys/${id}`, headers: bearer(t.live) })).statusCode).toBe(200);
    const r = await me(bearer(secret));
    expect(r.statusCode).toBe(401);
    expect(r.json()).toMatchObject({ type: 'auth', detail: expect.stringMatching(/revoked/) });
  });

  it('answers a key without the route’s scope 403 scope, still with its headers', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/keys', headers: bearer((await makeBot()).secret) });
    expect(r.statusCode).toBe(403);
    expect(r.json()).toMatchObject({ type: 'scope', status: 403 });
    expect(r.headers['ratelimit-limit']).toBe('120');
  });

  it('serves public routes without a key, ignoring a bad one', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/health', headers: bearer('prs_live_bad') });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ ok: true, chain: null });
  });
});

describe('rate limit headers', () => {
  it('counts down per key and answers 429 rate_limited with Retry-After past the limit; the window slides with the clock', async () => {
    const small = await startTestApp({ rateLimit: { limit: 2, windowMs: 60_000 } });
    try {
      const get = () => small.app.inject({ method: 'GET', url: '/v1/presence/me', headers: bearer(small.live) });
      expect((await get()).headers['ratelimit-remaining']).toBe('1');
      expect((await get()).headers['ratelimit-remaining']).toBe('0');
      const refused = await get();
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ type: 'rate_limited', status: 429 });
      expect(refused.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-remaining': '0' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // The test key is its own key: its own budget.
      expect((await small.app.inject({ method: 'GET', url: '/v1/presence/me', headers: bearer(small.test) })).statusCode).toBe(200);
      small.clock.advance(60_001);
      expect((await get()).statusCode).toBe(200);
    } finally {
      await small.close();
    }
  });
});
