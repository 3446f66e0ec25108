// Refusals that come from below our routes — Fastify's router (an overlong path segment, a
// malformed %-escape) and Node's HTTP parser (oversized headers, bytes that are not HTTP) —
// are application/problem+json with a stable type like every other error. The parser's
// answers never reach inject(), so they are read off a real socket.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-test-server';
import { call } from './harness';

const s = useTestServer();

/** Every problem names its request (`request_id`, also the X-Request-Id header). */
const problem = (status: number, type: string) => ({
  type,
  title: expect.any(String),
  status,
  detail: expect.any(String),
  request_id: expect.any(String),
});

/** Writes raw bytes on a fresh connection and reads everything until the server closes it. */
function raw(bytes: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      text += d;
    });
    // The server may reset the connection after answering (it does not read the rest).
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const at = text.indexOf('\r\n\r\n');
      if (at < 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ status: Number(text.slice(9, 12)), headers: text.slice(0, at).toLowerCase(), body: text.slice(at + 4) });
    });
  });
}

describe('errors from the router and the parser are problem+json', () => {
  it('414 uri_too_long for a path segment of 5,000 characters, without echoing it', async () => {
    const r = await call(s.url, 'DELETE', `/v1/memory/${'x'.repeat(5000)}`, { key: s.live });
    expect(r.status).toBe(414);
    expect(r.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(r.json).toEqual(problem(414, 'uri_too_long'));
    expect(r.text.length).toBeLessThan(300);
  });

  it.each(['/v1/memory/%ff', '/v1/confirm/cf_%%%%', '/v1/links/%E0%A4%A/redeem'])(
    '400 invalid_request for a malformed escape in %s',
    async (url) => {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const r = await call(s.url, method, url, { key: s.live });
        expect(r.status).toBe(400);
        expect(r.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        expect(r.json).toEqual(problem(400, 'invalid_request'));
      }
    },
  );

  it('431 headers_too_large for a 100 KB Authorization header, then the connection closes', async () => {
    const r = await raw(`GET /v1/presence/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(100_000)}\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.headers).toContain('content-type: application/problem+json');
    expect(r.headers).toContain('connection: close');
    expect(JSON.parse(r.body)).toEqual(problem(431, 'headers_too_large'));
    // Written before any request exists: the answer still names itself, in header and body alike.
    expect(r.headers).toContain(`x-request-id: ${JSON.parse(r.body).request_id}`);
  });

  it('400 invalid_request for bytes that are not HTTP', async () => {
    const r = await raw('HELLO / WORLD\r\n\r\n');
    expect(r.status).toBe(400);
    expect(r.headers).toContain('content-type: application/problem+json');
    expect(JSON.parse(r.body)).toEqual(problem(400, 'invalid_request'));
  });

  it('the server keeps answering afterwards', async () => {
    expect((await call(s.url, 'GET', '/v1/health')).status).toBe(200);
  });
});
