// Stream caps: the refusal's shape, through the real app (a cap of 0 refuses the first stream,
// so no stream is ever held open here).
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp, testLimits } from '../../test/test-app';
import { STREAM_RETRY_AFTER_S } from './stream-caps';

let t: TestApp | undefined;
afterEach(() => t?.close());

const openEvents = (app: TestApp) => app.app.inject({ method: 'GET', url: '/v1/events', headers: bearer(app.live) });

describe('stream caps refusal', () => {
  it.each([
    ['a key', { perKey: 0, perAccount: 10, total: 10 }, 429, 'rate_limited', 'streams_per_key'],
    ['an account', { perKey: 10, perAccount: 0, total: 10 }, 429, 'rate_limited', 'streams_per_account'],
    ['the server', { perKey: 10, perAccount: 10, total: 0 }, 503, 'unavailable', 'streams'],
  ])('past %s’s cap: problem+json naming the cap, Retry-After, and the connection closes', async (_who, streams, status, type, limit) => {
    t = await startTestApp({ limits: { ...testLimits, streams } });
    const r = await openEvents(t);
    expect(r.statusCode).toBe(status);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json()).toMatchObject({ type, status, limit });
    expect(r.headers['retry-after']).toBe(String(STREAM_RETRY_AFTER_S));
    expect(r.headers.connection).toBe('close');
  });

  it('counts a streamed turn under the same caps', async () => {
    t = await startTestApp({ limits: { ...testLimits, streams: { perKey: 0, perAccount: 10, total: 10 } } });
    const r = await t.app.inject({ method: 'POST', url: '/v1/messages', headers: bearer(t.live), payload: { text: 'hi', stream: true } });
    expect(r.statusCode).toBe(429);
    expect(r.json()).toMatchObject({ type: 'rate_limited', limit: 'streams_per_key' });
  });
});
