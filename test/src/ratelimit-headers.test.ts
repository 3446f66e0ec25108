// RateLimit-Limit / -Remaining / -Reset on every keyed answer — success, 403 scope, 404
// unknown route, 4xx validation and body parsing, 429 — with Reset counting down to the
// moment the oldest request leaves the window (driven clock). A 401 has no key to count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call, createManualClock, removeDir, startTestServer, type TestServer } from './harness';

describe('rate-limit headers', () => {
  const clock = createManualClock(Date.now());
  let s: TestServer;
  let key: string;

  beforeAll(async () => {
    s = await startTestServer({ clock, env: { PRESENCE_RATE_LIMIT: '6/10s' } });
    const mk = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'counted', scopes: ['talk', 'memory:write'] } });
    key = mk.json.secret;
  });
  afterAll(async () => {
    await s.close();
    removeDir(s.dataDir);
  });

  const rate = (r: Answer) => [
    r.headers.get('ratelimit-limit'),
    r.headers.get('ratelimit-remaining'),
    r.headers.get('ratelimit-reset'),
    r.headers.get('presence-mode'),
  ];

  it('every keyed answer carries them, and Reset is the wait for the oldest request to leave', async () => {
    const ok = await call(s.url, 'GET', '/v1/presence/me', { key });
    expect([ok.status, ...rate(ok)]).toEqual([200, '6', '5', '10', 'live']);

    clock.advance(4_000);
    const unknown = await call(s.url, 'GET', '/v1/no-such-route', { key });
    expect([unknown.status, unknown.json.type, ...rate(unknown)]).toEqual([404, 'not_found', '6', '4', '6', 'live']);

    clock.advance(1_000);
    const scope = await call(s.url, 'GET', '/v1/keys', { key });
    expect([scope.status, scope.json.type, ...rate(scope)]).toEqual([403, 'scope', '6', '3', '5', 'live']);

    const invalid = await call(s.url, 'POST', '/v1/memory/pin', { key, body: { key: 'no namespace' } });
    expect([invalid.status, invalid.json.type, ...rate(invalid)]).toEqual([400, 'invalid_request', '6', '2', '5', 'live']);

    const badJson = await call(s.url, 'POST', '/v1/memory/pin', { key, rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect([badJson.status, ...rate(badJson)]).toEqual([400, '6', '1', '5', 'live']);

    clock.advance(500);
    const media = await call(s.url, 'POST', '/v1/memory/pin', { key, rawBody: 'x', headers: { 'content-type': 'text/plain' } });
    expect([media.status, media.json.type, ...rate(media)]).toEqual([415, 'unsupported_media_type', '6', '0', '5', 'live']);

    const limited = await call(s.url, 'GET', '/v1/presence/me', { key });
    expect([limited.status, limited.json.type, ...rate(limited)]).toEqual([429, 'rate_limited', '6', '0', '5', 'live']);
    expect(limited.headers.get('retry-after')).toBe('5');

    clock.advance(4_500); // t=10 s: the first request has left the window; the oldest is now t=4 s
    const again = await call(s.url, 'GET', '/v1/presence/me', { key });
    expect([again.status, ...rate(again)]).toEqual([200, '6', '0', '4', 'live']);
  });

  it('a 401 has no key to count against, so it carries none of them (README)', async () => {
    for (const r of [
      await call(s.url, 'GET', '/v1/presence/me'),
      await call(s.url, 'GET', '/v1/presence/me', { key: `prs_live_${'x'.repeat(40)}` }),
    ]) {
      expect(r.status).toBe(401);
      expect(rate(r)).toEqual([null, null, null, null]);
    }
    // An unknown route with an unknown key stays a plain 404.
    const r = await call(s.url, 'GET', '/v1/no-such-route', { key: `prs_live_${'x'.repeat(40)}` });
    expect([r.status, ...rate(r)]).toEqual([404, null, null, null, null]);
  });
});
