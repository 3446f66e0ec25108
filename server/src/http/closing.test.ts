// A request that reaches the server while it shuts down is a problem like every other failure:
// 503 `unavailable` as application/problem+json, with `Connection: close` and Retry-After, over
// a real socket (inject() refuses a closing app): the second request arrives on a keep-alive
// connection still busy with the first, held in its handler, after closing began.
import { connect } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/test-app';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close().catch(() => undefined));

it('answers a request that arrives while closing with 503 problem+json, Connection: close', async () => {
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  t.app.get('/v1/slow', { schema: { hide: true } }, async () => {
    entered();
    await held;
    return { ok: true };
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };

  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => {
    received += d;
  });
  const ended = new Promise<void>((r) => socket.once('close', () => r()));
  socket.write('GET /v1/slow HTTP/1.1\r\nHost: a\r\n\r\n');
  await inside;

  const closed = t.app.close();
  // Closing has begun once the server stops taking connections (after the preClose hooks);
  // the connection stays open, busy with the first request, and the second arrives on it.
  while (t.app.server.listening) await new Promise((r) => setTimeout(r, 5));
  socket.write('GET /v1/health HTTP/1.1\r\nHost: a\r\n\r\n');
  release();
  await ended;
  await closed;

  const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
  expect(first).toMatch(/^HTTP\/1\.1 200/);
  expect(second).toMatch(/^HTTP\/1\.1 503/);
  expect(second).toMatch(/\r\ncontent-type: application\/problem\+json/i);
  expect(second).toMatch(/\r\nconnection: close/i);
  expect(second).toMatch(/\r\nretry-after: 1/i);
  const body = JSON.parse((second as string).slice((second as string).indexOf('\r\n\r\n') + 4));
  expect(body).toMatchObject({ type: 'unavailable', status: 503, request_id: expect.any(String) });
  expect(body.detail).toMatch(/shutting down/);
});

it('closes a connection that never sent a byte (a preconnect), which would otherwise hold the close until the headers timeout', async () => {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  const silent = connect(port, '127.0.0.1');
  const cut = new Promise<void>((r) => silent.once('close', () => r()));
  silent.on('error', () => undefined);
  const connections = () => new Promise<number>((r) => t.app.server.getConnections((_e, n) => r(n)));
  while ((await connections()) === 0) await new Promise((r) => setTimeout(r, 5));

  // Left to Node, close() waits for this socket (the test app's headers timeout is 60 s).
  await t.app.close();
  await cut;
  expect(silent.destroyed).toBe(true);
  expect(silent.bytesRead).toBe(0);
});
