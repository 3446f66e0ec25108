// Request ids through the real app: a fit incoming X-Request-Id is kept, anything else is
// replaced by a fresh one; the id is echoed on every answer, is request_id in every problem
// body, and in every log line of the request.
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';
import { productionLogger } from '../logger';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('X-Request-Id', () => {
  it('keeps a fit incoming id, on a success and on a problem alike', async () => {
    t = await startTestApp();
    const ok = await t.app.inject({ method: 'GET', url: '/v1/memory', headers: { ...bearer(t.live), 'x-request-id': 'lb-7f3a:42' } });
    expect([ok.statusCode, ok.headers['x-request-id']]).toEqual([200, 'lb-7f3a:42']);
    const denied = await t.app.inject({ method: 'GET', url: '/v1/memory', headers: { 'x-request-id': 'trace-1' } });
    expect([denied.statusCode, denied.headers['x-request-id'], denied.json().request_id]).toEqual([401, 'trace-1', 'trace-1']);
  });

  it('generates one when none is sent, or when the one sent is unfit (too long, spaces, control or non-ASCII characters)', async () => {
    t = await startTestApp();
    const ids: string[] = [];
    const unfit = [undefined, 'x'.repeat(65), 'has space', 'tab\there', 'caf\u00e9', ''];
    // Or when it could be a secret: a key, a surface token, a link code (bare or grouped), the master key.
    const secrets = [
      'prs_live_abc',
      'PRS_SURFACE_x',
      'ABCDEFGHJKLMNPQRSTUV',
      'ABCDE-FGHJK-LMNPQ-RSTUV',
      'ab'.repeat(32),
      'req-ABCDEFGHJKLMNPQR',
    ];
    for (const sent of [...unfit, ...secrets]) {
      const r = await t.app.inject({ method: 'GET', url: '/v1/nowhere', headers: sent === undefined ? {} : { 'x-request-id': sent } });
      const id = String(r.headers['x-request-id']);
      expect(id).toMatch(UUID);
      expect(r.json()).toMatchObject({ type: 'not_found', request_id: id });
      ids.push(id);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // Kept: a UUID, nginx's 32 hex digits, a short id, the longest that fits (64 characters, 15 letters or digits).
    for (const kept of ['3f0c2a4e-9f1b-4c57-8d0e-6a1b2c3d4e5f', 'ab'.repeat(16), 'lb-7f3a:42', `${'-'.repeat(49)}${'y'.repeat(15)}`]) {
      const r = await t.app.inject({ method: 'GET', url: '/v1/health', headers: { 'x-request-id': kept } });
      expect(r.headers['x-request-id']).toBe(kept);
    }
  });

  it('is on the headers of an event stream', async () => {
    t = await startTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const ac = new AbortController();
    const res = await fetch(`http://127.0.0.1:${port}/v1/events`, {
      headers: { ...bearer(t.live), 'x-request-id': 'stream-1' },
      signal: ac.signal,
    });
    expect([res.status, res.headers.get('content-type'), res.headers.get('x-request-id')]).toEqual([
      200,
      'text/event-stream; charset=utf-8',
      'stream-1',
    ]);
    ac.abort();
  });

  it('is request_id in every log line of the request', async () => {
    const lines: Record<string, unknown>[] = [];
    t = await startTestApp({ app: { logger: productionLogger('info', { write: (l) => void lines.push(JSON.parse(l)) }) } });
    await t.app.inject({ method: 'GET', url: '/v1/nowhere', headers: { 'x-request-id': 'logged-1' } });
    const mine = lines.filter((l) => l.request_id === 'logged-1');
    expect(mine.length).toBeGreaterThanOrEqual(2); // incoming and completed
    expect(lines.filter((l) => 'req' in l || 'res' in l).every((l) => typeof l.request_id === 'string')).toBe(true);
    expect(lines.some((l) => 'reqId' in l)).toBe(false);
  });
});
