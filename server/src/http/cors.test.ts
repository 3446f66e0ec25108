// CORS through the real app: none by default; for a listed origin the headers a browser needs
// (and a preflight for the headers the API reads); for any other origin nothing, so the
// browser refuses the page the answer.
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';

const ALLOWED = 'https://app.example.com';
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('CORS', () => {
  it('sends no CORS header when no origin is configured', async () => {
    t = await startTestApp();
    const r = await t.app.inject({ method: 'GET', url: '/v1/memory', headers: { ...bearer(t.live), origin: ALLOWED } });
    expect(r.statusCode).toBe(200);
    expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('allows a listed origin and exposes the request id and rate-limit headers', async () => {
    t = await startTestApp({ app: { corsOrigins: [ALLOWED, 'http://localhost:5173'] } });
    const r = await t.app.inject({ method: 'GET', url: '/v1/memory', headers: { ...bearer(t.live), origin: ALLOWED } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(r.headers.vary).toMatch(/Origin/);
    const exposed = String(r.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['x-request-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']),
    );
    // A problem carries them too: the page can read why it failed.
    const denied = await t.app.inject({ method: 'GET', url: '/v1/memory', headers: { origin: ALLOWED } });
    expect([denied.statusCode, denied.headers['access-control-allow-origin']]).toEqual([401, ALLOWED]);
  });

  it('answers a preflight for Authorization, Idempotency-Key, Last-Event-ID and Content-Type', async () => {
    t = await startTestApp({ app: { corsOrigins: [ALLOWED] } });
    const r = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/memory/pin',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, idempotency-key, last-event-id, content-type',
      },
    });
    expect(r.statusCode).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(r.headers['access-control-allow-methods'])).toContain('POST');
    const allowed = String(r.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'idempotency-key', 'last-event-id', 'content-type']));
  });

  it('refuses any other origin: no Access-Control-Allow-Origin on answers or preflights', async () => {
    t = await startTestApp({ app: { corsOrigins: [ALLOWED] } });
    for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.net', 'http://app.example.com']) {
      const r = await t.app.inject({ method: 'GET', url: '/v1/memory', headers: { ...bearer(t.live), origin } });
      expect(r.statusCode).toBe(200);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
      const pre = await t.app.inject({
        method: 'OPTIONS',
        url: '/v1/memory/pin',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
