// Red-team cases about connections, replayed (not timed) against a real server;
// red-team-postgres.test.ts runs them again on PostgreSQL.
// 2. a body that never finishes is cut off (PRESENCE_REQUEST_TIMEOUT), one address cannot hold
//    every connection (PRESENCE_MAX_CONNECTIONS_PER_ADDRESS), and CONNECT and other unknown
//    methods get an HTTP answer.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callFrom } from './from-address';
import { call, removeDir, startTestServer, type TestServer } from './harness';
import { until } from './wallet-helpers';

let servers: TestServer[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const s of servers) {
    await s.close();
    removeDir(s.dataDir);
  }
  servers = [];
});
async function start(env: Record<string, string> = {}) {
  const s = await startTestServer({ env });
  servers.push(s);
  return s;
}

type RawAnswer = { status: number; head: string; body: string };

/** A connection from `from` that writes `bytes` and never finishes; `answer` settles when the server ends it. */
function hold(s: TestServer, bytes: string, from = '127.0.0.1') {
  const socket = net.connect({ port: Number(new URL(s.url).port), host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => {
    text += d;
  });
  socket.on('error', () => undefined);
  const opened = new Promise<void>((r) => socket.once('connect', () => r()));
  socket.once('connect', () => socket.write(bytes));
  const answer = new Promise<RawAnswer | null>((resolve) =>
    socket.on('close', () => {
      const at = text.indexOf('\r\n\r\n');
      resolve(at < 0 ? null : { status: Number(text.slice(9, 12)), head: text.slice(0, at).toLowerCase(), body: text.slice(at + 4) });
    }),
  );
  /** True once a whole answer has arrived: its head, and as much body as its Content-Length says. */
  const answered = () => {
    const at = text.indexOf('\r\n\r\n');
    if (at < 0) return false;
    const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, at));
    return !length || Buffer.byteLength(text.slice(at + 4)) >= Number(length[1]);
  };
  return { socket, opened, answer, answered };
}

const partialPost = (path: string, key?: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"surface":`;

describe('2. slow bodies are cut off', () => {
  it.each([
    ['the public redeem route', '/v1/links/ABCDEFGHJKLMNPQRSTUV/redeem', false],
    ['a keyed write', '/v1/memory/pin', true],
  ])('%s: a body that never finishes gets 408 request_timeout and the connection closes', async (_, path, keyed) => {
    const s = await start({ PRESENCE_REQUEST_TIMEOUT: '1s' });
    const held = hold(s, partialPost(path, keyed ? s.live : undefined));
    const a = await held.answer;
    expect(a?.status).toBe(408);
    expect(a?.head).toContain('content-type: application/problem+json');
    expect(JSON.parse(a?.body ?? '{}').type).toBe('request_timeout');
    expect((await call(s.url, 'GET', '/v1/health')).status).toBe(200);
  });
});

describe('2. one address cannot take every connection', () => {
  it('past its cap an address is answered 429 and closed; health and keyed reads from others keep answering', async () => {
    const s = await start({ PRESENCE_MAX_CONNECTIONS: '200', PRESENCE_MAX_CONNECTIONS_PER_ADDRESS: '5' });
    const held = Array.from({ length: 210 }, () => hold(s, partialPost('/v1/links/ABCDEFGHJKLMNPQRSTUV/redeem'), '127.0.0.2'));
    await Promise.all(held.map((h) => h.opened.catch(() => undefined)));
    // All but the first five are answered and closed at once.
    const answers = await Promise.all(held.slice(5).map((h) => h.answer));
    for (const a of answers) {
      expect(a?.status).toBe(429);
      expect(JSON.parse(a?.body ?? '{}')).toMatchObject({ type: 'rate_limited', limit: 'connections_per_address' });
    }
    expect((await callFrom('127.0.0.3', s.url, 'GET', '/v1/health')).status).toBe(200);
    expect((await callFrom('127.0.0.3', s.url, 'GET', '/v1/presence/me', { key: s.live })).status).toBe(200);
    expect((await call(s.url, 'GET', '/v1/memory', { key: s.live })).status).toBe(200);
    // The five still held are the address's own: another one from it is refused too.
    const sixth = await hold(s, 'GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n', '127.0.0.2').answer;
    expect(sixth?.status).toBe(429);
    for (const h of held) h.socket.destroy();
  });
});

describe('2. unknown methods get an HTTP answer', () => {
  it.each([
    'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    'TRACE /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    'PROPFIND /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    'BREW /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    'GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
  ])('%j', async (bytes) => {
    const s = await start();
    const h = hold(s, bytes);
    // An answer arrives (the upgrade request's connection stays open after it: ended from here
    // once the answer is whole, or after a bounded wait for one that never comes).
    const end = () => h.socket.end();
    void until(h.answered, 10_000, 'an answer').then(end, end);
    const a = await h.answer;
    expect(a).not.toBeNull();
    expect(a?.status).toBeGreaterThanOrEqual(200);
    if ((a?.status ?? 0) >= 400) expect(a?.head).toContain('content-type: application/problem+json');
  });
});
