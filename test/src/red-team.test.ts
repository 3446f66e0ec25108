// The red-team cases of hardening round two, replayed (not timed) against a real server;
// red-team-postgres.test.ts runs them again with the server on PostgreSQL.
// 1. deep JSON bodies answer 400, and an invalid Idempotency-Key is refused before the body is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, type TestServer } from './harness';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
  if (s) removeDir(s.dataDir);
});

const WRITES: [string, string][] = [
  ['POST', '/v1/memory/pin'],
  ['PATCH', '/v1/presence/me'],
  ['POST', '/v1/keys'],
  ['POST', '/v1/links'],
  ['PUT', '/v1/wallet/policy'],
  ['POST', '/v1/confirm/cf_x'],
  ['POST', '/v1/messages'],
  ['POST', '/v1/links/ABCDEFGH/redeem'],
];

describe('1. deep JSON', () => {
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  it.each(WRITES)('%s %s: a body nested 5,000 deep is 400 invalid_request, with any Idempotency-Key', async (method, url) => {
    for (const idempotencyKey of [undefined, 'k-1', 'an invalid key']) {
      const r = await call(s.url, method, url, {
        key: s.live,
        rawBody: deep,
        headers: { 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      });
      expect([r.status, r.json?.type]).toEqual([400, 'invalid_request']);
    }
  });

  it('deep objects and deep strings inside a shallow body are told apart', async () => {
    const objects = `${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}`;
    const r = await call(s.url, 'POST', '/v1/memory/pin', {
      key: s.live,
      rawBody: objects,
      headers: { 'content-type': 'application/json' },
    });
    expect([r.status, r.json?.type]).toEqual([400, 'invalid_request']);
    expect(r.json.detail).toMatch(/nested/);
    // Brackets inside a string are text, not nesting.
    const text = { key: 'topic:brackets', note: '[{'.repeat(200) };
    const ok = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: text });
    expect(ok.status).toBeLessThan(300);
  });

  it('an invalid Idempotency-Key is refused before the body is read', async () => {
    const { port } = new URL(s.url);
    const net = await import('node:net');
    // Headers promising a body that never comes: the answer cannot have waited for it.
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () =>
        socket.write(
          `POST /v1/memory/pin HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.live}\r\nIdempotency-Key: two words\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
        ),
      );
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => {
        text += d;
        if (text.includes('\r\n\r\n') && text.includes('}')) {
          socket.destroy();
          resolve(text);
        }
      });
    });
    expect(answer.slice(9, 12)).toBe('400');
    expect(answer).toContain('Idempotency-Key');
  });
});
