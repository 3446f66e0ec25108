// The 5xx log line through the real app: a real viem chain whose RPC URL carries a secret in
// its path (as a provider's API key does) answers a wallet read 503, and the production
// logger's line says why — the refused connection, the node's 429 — without the secret. And
// a 500 nothing foresaw names its cause the same way.
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { chain, createKeystore } from '@presence/core';
import { createViemChain } from '@presence/core/viem';
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';
import { productionLogger } from '../logger';

const BASE_LIST = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@presence/core/package.json')),
  'src/chain/lists/base-mainnet.json',
);

const SECRET = 'sEcReTaPiKeY0123456789abcdef';

let t: TestApp | undefined;
let node: Server | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  node?.closeAllConnections();
  await new Promise((resolve) => (node ? node.close(resolve) : resolve(undefined)));
  node = undefined;
});

const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function appOn(rpcUrl: string) {
  const lines: string[] = [];
  const tokenList = await chain.loadTokenList(BASE_LIST);
  const rpc = createViemChain({ rpcUrl, tokenList, timeoutMs: 500, retryCount: 0 });
  t = await startTestApp({
    chain: { runtime: { chain: rpc, tokenList }, keystore: createKeystore(randomBytes(32)) },
    app: { logger: productionLogger('info', { write: (l) => void lines.push(l) }) },
  });
  return { lines, app: t.app, key: t.live };
}

/** The one warn line of the request, parsed, after checking no line holds the secret. */
function fiveHundredLine(lines: string[]) {
  for (const line of lines) expect(line).not.toMatch(new RegExp(`${SECRET}|Request body|"jsonrpc"`, 'i'));
  const warns = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'answered with a 5xx problem');
  expect(warns).toHaveLength(1);
  return warns[0];
}

describe('the log line of a 503 from the chain', () => {
  it('names the refused connection under it, and of the RPC URL only its scheme, host and port', async () => {
    const port = await closedPort();
    const { lines, app, key } = await appOn(`http://127.0.0.1:${port}/v2/${SECRET}`);
    const r = await app.inject({ method: 'GET', url: '/v1/wallet', headers: bearer(key) });
    expect(r.statusCode).toBe(503);
    expect(r.body).not.toContain(SECRET);
    const line = fiveHundredLine(lines);
    expect(line.level).toBe(40);
    expect(line.err).toMatchObject({ type: 'chain_unavailable', detail: expect.stringMatching(/unreachable/) });
    expect(line.err.cause).toEqual([
      { type: 'HttpRequestError', message: expect.stringContaining(`URL: http://127.0.0.1:${port}/… | Details: connect ECONNREFUSED`) },
      { type: 'Error', message: `connect ECONNREFUSED 127.0.0.1:${port}`, code: 'ECONNREFUSED' },
    ]);
  });

  it("names the node's 429, with no credential of the URL's (userinfo, path or query)", async () => {
    node = createHttpServer((_req, res) => res.writeHead(429, { 'content-type': 'text/plain' }).end('Too Many Requests'));
    await new Promise<void>((resolve) => node?.listen(0, '127.0.0.1', resolve));
    const { port } = node.address() as { port: number };
    const { lines, app, key } = await appOn(`http://user:${SECRET}@127.0.0.1:${port}/v2/${SECRET}?key=${SECRET}`);
    const r = await app.inject({ method: 'GET', url: '/v1/wallet', headers: bearer(key) });
    expect(r.statusCode).toBe(503);
    const line = fiveHundredLine(lines);
    expect(line.err.detail).toMatch(/HTTP 429/);
    expect(line.err.cause).toEqual([
      {
        type: 'HttpRequestError',
        message: expect.stringMatching(new RegExp(`Status: 429 \\| URL: http://127\\.0\\.0\\.1:${port}/…`)),
        status: 429,
      },
    ]);
  });
});

describe('the log line of an unhandled 500', () => {
  it('names its cause, redacted', async () => {
    const lines: string[] = [];
    t = await startTestApp({ app: { logger: productionLogger('info', { write: (l) => void lines.push(l) }) } });
    const refused = Object.assign(new Error(`fetch https://api.example.com/v1/${SECRET} failed`), { code: 'ETIMEDOUT' });
    t.core.presence.me = async () => {
      throw new Error('the presence document could not be read', { cause: refused });
    };
    const r = await t.app.inject({ method: 'GET', url: '/v1/presence/me', headers: bearer(t.live) });
    expect(r.statusCode).toBe(500);
    for (const line of lines) expect(line).not.toContain(SECRET);
    const [line] = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'unhandled error');
    expect(line.err).toEqual({
      type: 'Error',
      message: 'the presence document could not be read',
      cause: [{ type: 'Error', message: 'fetch https://api.example.com/… failed', code: 'ETIMEDOUT' }],
    });
  });
});
