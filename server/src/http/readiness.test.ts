// GET /v1/ready through the real app: 200 with what it checked while the store (and chain)
// answer; 503 problem+json naming what failed when the chain does not — a real viem chain
// pointed at a loopback port nothing listens on. /v1/health stays 200 all along (liveness).
// (The store failing is tested on PostgreSQL, in test/src/postgres-server.test.ts.)
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { chain, createKeystore } from '@presence/core';
import { createViemChain } from '@presence/core/viem';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/test-app';

/** The Base mainnet token list core ships: the chain is real, only nothing answers at its URL. */
const BASE_LIST = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@presence/core/package.json')),
  'src/chain/lists/base-mainnet.json',
);

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A loopback port nothing listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('GET /v1/ready', () => {
  it('is 200 with the store check (and no chain check on a server without a chain), no key needed', async () => {
    t = await startTestApp();
    const r = await t.app.inject({ method: 'GET', url: '/v1/ready' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ ok: true, checks: { store: { ok: true, ms: expect.any(Number) }, chain: null } });
  });

  it('is 503 unavailable naming the chain when the chain does not answer, while /v1/health stays 200', async () => {
    const tokenList = await chain.loadTokenList(BASE_LIST);
    const rpc = createViemChain({ rpcUrl: `http://127.0.0.1:${await closedPort()}`, tokenList, timeoutMs: 500, retryCount: 0 });
    t = await startTestApp({ chain: { runtime: { chain: rpc, tokenList }, keystore: createKeystore(randomBytes(32)) } });
    const r = await t.app.inject({ method: 'GET', url: '/v1/ready', headers: { 'x-request-id': 'probe-1' } });
    expect(r.statusCode).toBe(503);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.headers['retry-after']).toBe('5');
    expect(r.json()).toEqual({
      type: 'unavailable',
      title: 'Service unavailable',
      status: 503,
      detail: expect.stringMatching(/^not ready: the chain /),
      failing: ['chain'],
      request_id: 'probe-1',
    });
    expect((await t.app.inject({ method: 'GET', url: '/v1/health' })).statusCode).toBe(200);
  });
});
