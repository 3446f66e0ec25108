// The JSON-RPC transport: calls made together travel as one batch and get their own answers
// (a revert among them fails only itself), a node that refuses batches is asked one call at
// a time from then on, URL credentials become a Basic header, and failures are viem's errors.
import diagnostics from 'node:diagnostics_channel';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Devnet, startDevnet } from '@presence/devnet';
import { createPublicClient, type Hex, HttpRequestError, TimeoutError } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainRevertedError } from '../errors';
import { rpcTransport } from './rpc-transport';
import { createViemChain } from './viem-chain';

describe('batching against the devnet', () => {
  let dataDir: string;
  let devnet: Devnet;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'presence-rpc-'));
    devnet = await startDevnet({ dataDir });
  });
  afterAll(async () => {
    await devnet?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Counts HTTP requests to the devnet while `fn` runs. */
  async function httpRequestsDuring(fn: () => Promise<unknown>) {
    const origin = new URL(devnet.rpcUrl).origin;
    let n = 0;
    const onCreate = (m: unknown) => {
      if (String((m as { request: { origin: unknown } }).request.origin).replace(/\/$/, '') === origin) n++;
    };
    diagnostics.subscribe('undici:request:create', onCreate);
    try {
      await fn();
    } finally {
      diagnostics.unsubscribe('undici:request:create', onCreate);
    }
    return n;
  }

  it('sends calls made together as one request, each with its own answer', async () => {
    const list = devnet.deployment;
    const chain = createViemChain({ rpcUrl: devnet.rpcUrl, tokenList: list, timeoutMs: 3000 });
    const block = await chain.blockNumber();
    const [weth, usdc, dai] = ['WETH', 'USDC', 'DAI'].map((s) => list.tokens.find((t) => t.symbol === s)?.address as Hex) as [
      Hex,
      Hex,
      Hex,
    ];
    await chain.pair(weth, usdc, { block }); // pair addresses are cached after the first read
    let results: PromiseSettledResult<unknown>[] = [];
    const requests = await httpRequestsDuring(async () => {
      results = await Promise.allSettled([
        chain.pair(weth, usdc, { block }),
        chain.totalSupply(dai, { block }),
        // transfer() from the zero address reverts: one failure in the batch.
        chain.call(
          { to: usdc, data: `0xa9059cbb${'0'.repeat(24)}${'11'.repeat(20)}${(10n ** 30n).toString(16).padStart(64, '0')}` },
          { block },
        ),
        chain.tokenBalance(usdc, weth, { block }),
      ]);
    });
    expect(requests).toBe(1);
    const [pair, supply, transfer, balance] = results;
    expect(pair?.status).toBe('fulfilled');
    expect((pair as PromiseFulfilledResult<{ reserveA: bigint }>).value.reserveA).toBeGreaterThan(0n);
    expect((supply as PromiseFulfilledResult<bigint>).value).toBeGreaterThan(0n);
    expect(transfer?.status).toBe('rejected');
    expect((transfer as PromiseRejectedResult).reason).toBeInstanceOf(ChainRevertedError);
    expect((balance as PromiseFulfilledResult<bigint>).value).toBe(0n);
    // Calls made one after another are not held back for company.
    expect(await httpRequestsDuring(async () => [await chain.blockNumber(), await chain.blockNumber()])).toBe(2);
  });
});

describe('against a scripted node', () => {
  type Seen = { body: unknown; url: string | undefined; authorization: string | undefined };
  type Body = { id: number; method: string };
  async function node(answer: (body: Body | Body[]) => unknown) {
    const seen: Seen[] = [];
    const server = createServer(async (req: IncomingMessage, res) => {
      let text = '';
      for await (const chunk of req) text += chunk;
      const body = JSON.parse(text);
      seen.push({ body, url: req.url, authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(body)));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const a = server.address();
    const port = typeof a === 'object' && a ? a.port : 0;
    return { seen, port, close: () => new Promise((r) => server.close(r)) };
  }
  const single = (b: Body) => ({ jsonrpc: '2.0', id: b.id, result: b.method === 'eth_chainId' ? '0x1' : '0x10' });

  it('asks one call at a time once the node refuses a batch', async () => {
    const n = await node((b) =>
      Array.isArray(b) ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batches are not supported' } } : single(b),
    );
    try {
      const client = createPublicClient({ transport: rpcTransport(`http://127.0.0.1:${n.port}`, { timeoutMs: 1000 }) });
      expect(await Promise.all([client.getBlockNumber({ cacheTime: 0 }), client.getChainId()])).toEqual([16n, 1]);
      expect(await Promise.all([client.getBlockNumber({ cacheTime: 0 }), client.getChainId()])).toEqual([16n, 1]);
      // One refused batch, its two calls alone, then two more alone.
      expect(n.seen.map((s) => (Array.isArray(s.body) ? s.body.length : 1))).toEqual([2, 1, 1, 1, 1]);
    } finally {
      await n.close();
    }
  });

  it('fails with viem errors: a node that does not answer in time, an answer that is not JSON', async () => {
    const stalled = createServer(() => undefined); // reads the request, never answers
    const garbled = createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>'));
    const ports: number[] = [];
    for (const server of [stalled, garbled]) {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      ports.push((server.address() as { port: number }).port);
    }
    try {
      const [slow, bad] = ports.map((port) =>
        createPublicClient({ transport: rpcTransport(`http://127.0.0.1:${port}`, { timeoutMs: 200, retryCount: 0 }) }),
      ) as [ReturnType<typeof createPublicClient>, ReturnType<typeof createPublicClient>];
      await expect(slow.getChainId()).rejects.toBeInstanceOf(TimeoutError);
      const err = await bad.getChainId().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpRequestError);
      expect((err as HttpRequestError).status).toBe(502);
    } finally {
      stalled.closeAllConnections();
      for (const server of [stalled, garbled]) await new Promise((r) => server.close(r));
    }
  });

  it('sends credentials in the URL as a Basic header, and the path as given', async () => {
    const n = await node((b) => single(b as Body));
    try {
      const client = createPublicClient({
        transport: rpcTransport(`http://us%40er:s3cret@127.0.0.1:${n.port}/v2/key`, { timeoutMs: 1000 }),
      });
      expect(await client.getChainId()).toBe(1);
      expect(n.seen[0]?.url).toBe('/v2/key');
      expect(n.seen[0]?.authorization).toBe(`Basic ${Buffer.from('us@er:s3cret').toString('base64')}`);
      const stray = createPublicClient({ transport: rpcTransport(`http://user:50%zz@127.0.0.1:${n.port}/`, { timeoutMs: 1000 }) });
      expect(await stray.getChainId()).toBe(1);
      expect(n.seen[1]?.authorization).toBe(`Basic ${Buffer.from('user:50%zz').toString('base64')}`);
    } finally {
      await n.close();
    }
  });
});
