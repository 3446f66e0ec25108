// Chain views over HTTP against the devnet, every number checked against the chain itself
// (reserves, balances, the unsafe token's own tax setting), and a server whose RPC is
// unreachable: it starts, reports chain null on /v1/health, and answers 503 chain_unavailable
// quickly instead of hanging.

import { createRequire } from 'node:module';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { chain as chainLayer } from '@presence/core';
import { toFunctionSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, type TestServer } from './harness';
import { balances, type Hex, portOf, tokenOf } from './wallet-helpers';

const require = createRequire(import.meta.url);
const baseList = path.join(path.dirname(require.resolve('@presence/core/package.json')), 'src/chain/lists/base-mainnet.json');
const USD = 10n ** 18n;

describe('chain views on the devnet', () => {
  let s: TestServer;
  let address: Hex;
  beforeAll(async () => {
    s = await startTestServer({ chain: true });
    address = (await call(s.url, 'GET', '/v1/wallet', { key: s.live })).json.address;
  });
  afterAll(async () => {
    await s?.close();
    if (s) removeDir(s.dataDir);
  });

  const view = (url: string) => call(s.url, 'GET', url, { key: s.live });
  const head = async () => Number(await portOf(s).blockNumber());

  /** USD price of WETH as the views derive it: from its deepest stable pool. */
  async function wethPrice(block: bigint) {
    const weth = tokenOf(s, 'WETH');
    let best = { depth: -1n, price: 0n };
    for (const t of portOf(s).tokenList.tokens.filter((x) => x.stable)) {
      const p = await portOf(s).pair(weth.address, t.address, { block });
      if (!p) continue;
      const depth = (p.reserveB * USD) / 10n ** BigInt(t.decimals);
      if (depth > best.depth) best = { depth, price: (p.reserveB * USD * USD) / (p.reserveA * 10n ** BigInt(t.decimals)) };
    }
    return best.price;
  }

  it('tokens: every listed token with its decimals and a USD price from the reserves; stables are 1', async () => {
    const r = await view('/v1/chain/tokens');
    expect(r.status).toBe(200);
    const block = BigInt(r.json.as_of_block);
    expect(r.json.as_of_block).toBeLessThanOrEqual(await head());
    const list = portOf(s).tokenList.tokens;
    expect(r.json.tokens.map((t: { symbol: string }) => t.symbol)).toEqual(list.map((t) => t.symbol));
    const bySymbol = Object.fromEntries(r.json.tokens.map((t: { symbol: string }) => [t.symbol, t]));
    for (const t of list) expect(bySymbol[t.symbol]).toMatchObject({ address: t.address, decimals: t.decimals });
    expect(bySymbol.USDC.price_usd).toBe('1.00 USD');
    expect(bySymbol.DAI.price_usd).toBe('1.00 USD');
    const weth = await wethPrice(block);
    expect(bySymbol.WETH.price_usd).toBe(chainLayer.formatUsdPrice(weth));
    const scamPool = await portOf(s).pair(tokenOf(s, 'SCAM').address, tokenOf(s, 'WETH').address, { block });
    const scam = ((scamPool?.reserveB as bigint) * weth) / (scamPool?.reserveA as bigint);
    expect(bySymbol.SCAM.price_usd).toBe(chainLayer.formatUsdPrice(scam));
  });

  it('pools: reserves and depth as on the chain at as_of_block; ?pair= picks and orients one', async () => {
    const all = await view('/v1/chain/pools');
    expect(all.status).toBe(200);
    expect(all.json.pools.map((p: { pair: string }) => p.pair).sort()).toEqual(['WETH-DAI', 'WETH-SCAM', 'WETH-USDC']);
    const block = BigInt(all.json.as_of_block);
    const weth = await wethPrice(block);
    for (const p of all.json.pools) {
      expect(p.as_of_block).toBe(all.json.as_of_block);
      const [a, b] = (p.pair as string).split('-').map((x) => tokenOf(s, x)) as [chainLayer.Token, chainLayer.Token];
      const onChain = await portOf(s).pair(a.address, b.address, { block });
      expect(p.address).toBe(onChain?.address);
      expect(p.reserves).toEqual({
        [a.symbol]: chainLayer.formatAmount(onChain?.reserveA as bigint, a),
        [b.symbol]: chainLayer.formatAmount(onChain?.reserveB as bigint, b),
      });
      if (p.pair === 'WETH-USDC') {
        const depth = ((onChain?.reserveA as bigint) * weth) / USD + (onChain?.reserveB as bigint) * 10n ** 12n;
        expect(p.depth_usd).toBe(chainLayer.usdToNumber(depth));
        expect(p.depth_usd).toBeGreaterThan(1_000_000);
      }
    }
    const one = await view('/v1/chain/pools?pair=WETH-USDC');
    expect(one.status).toBe(200);
    expect(one.json.pools).toHaveLength(1);
    expect(one.json.pools[0]).toMatchObject({ pair: 'WETH-USDC', as_of_block: one.json.as_of_block });
    expect(one.json.pools[0].price).toMatch(/ USDC per WETH$/);
    const flipped = await view('/v1/chain/pools?pair=USDC-WETH');
    expect(flipped.json.pools[0]).toMatchObject({ pair: 'USDC-WETH', address: one.json.pools[0].address });
    expect(flipped.json.pools[0].price).toMatch(/ WETH per USDC$/);
  });

  it('pools: an unknown pair is 404, a malformed one 400', async () => {
    for (const pair of ['USDC-DAI', 'FOO-BAR']) {
      const r = await view(`/v1/chain/pools?pair=${pair}`);
      expect([r.status, r.json.type], pair).toEqual([404, 'not_found']);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
    }
    for (const pair of ['WETH_USDC', 'WETH-', 'WETH-WETH', 'WETH-USDC-DAI']) {
      const r = await view(`/v1/chain/pools?pair=${encodeURIComponent(pair)}`);
      expect([r.status, r.json.type], pair).toEqual([400, 'invalid_request']);
    }
  });

  it('views are cached per block: the same block answers the same; a new block moves them', async () => {
    const a = await view('/v1/chain/pools?pair=WETH-USDC');
    const b = await view('/v1/chain/pools?pair=WETH-USDC');
    expect(b.json).toEqual(a.json);
    const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: 'swap 0.001 ETH for USDC' } });
    expect(r.status, r.text).toBe(200);
    const c = await view('/v1/chain/pools?pair=WETH-USDC');
    expect(c.json.as_of_block).toBeGreaterThanOrEqual(r.json.block);
    expect(c.json.pools[0].reserves).not.toEqual(a.json.pools[0].reserves);
  });

  it('positions: the wallet’s holdings as on the chain, priced, with a total', async () => {
    const r = await view('/v1/chain/positions');
    expect(r.status).toBe(200);
    expect(r.json.address).toBe(address);
    const onChain = await balances(s, address);
    const block = BigInt(r.json.as_of_block);
    const weth = await wethPrice(block);
    let total = 0n;
    for (const h of r.json.holdings as { symbol: string; amount: string; value_usd: string }[]) {
      const decimals = h.symbol === 'ETH' ? 18 : tokenOf(s, h.symbol).decimals;
      expect(h.amount).toBe(`${chainLayer.formatUnits(onChain[h.symbol] as bigint, decimals)} ${h.symbol}`);
      const unit = h.symbol === 'ETH' || h.symbol === 'WETH' ? weth : tokenOf(s, h.symbol).stable ? USD : null;
      if (unit !== null) {
        const v = ((onChain[h.symbol] as bigint) * unit) / 10n ** BigInt(decimals);
        expect(h.value_usd).toBe(chainLayer.formatUsd(v));
        total += v;
      }
    }
    expect(Number.parseFloat(r.json.total_usd)).toBeCloseTo(Number(chainLayer.formatUnits(total, 18, 2)), 1);
    expect(r.json.lp).toEqual([]);
  });

  it('safety: SCAM is unsafe with its measured sell tax; USDC is safe', async () => {
    const scam = await view('/v1/chain/safety?token=SCAM');
    expect(scam.status).toBe(200);
    // The token's own setting, read from its contract.
    const setting = BigInt(await portOf(s).call({ to: tokenOf(s, 'SCAM').address, data: toFunctionSelector('sellTaxBps()') }));
    expect(setting).toBeGreaterThan(0n);
    expect(scam.json).toMatchObject({ token: 'SCAM', verdict: 'unsafe', can_mint: true });
    expect(Math.abs((scam.json.measured.sell_tax_bps as number) - Number(setting))).toBeLessThanOrEqual(50);
    expect(scam.json.reasons.join(' ')).toMatch(/tax/i);
    expect(scam.json.as_of_block).toBeLessThanOrEqual(await head());

    const usdc = await view('/v1/chain/safety?token=USDC');
    expect(usdc.json).toMatchObject({ token: 'USDC', verdict: 'safe', can_mint: false, owner: null });
    expect(usdc.json.measured).toMatchObject({ buy_tax_bps: 0, sell_tax_bps: 0 });
    expect(typeof usdc.json.as_of_block).toBe('number');

    // By address too.
    const byAddress = await view(`/v1/chain/safety?token=${tokenOf(s, 'SCAM').address}`);
    expect(byAddress.json.verdict).toBe('unsafe');
  });

  it('bad view requests: unknown view 404 (no such route), safety without ?token= 400, unknown token 404', async () => {
    const unknown = await view('/v1/chain/gossip');
    expect([unknown.status, unknown.json.type]).toEqual([404, 'not_found']);
    const noToken = await view('/v1/chain/safety');
    expect([noToken.status, noToken.json.type]).toEqual([400, 'invalid_request']);
    const noSuch = await view('/v1/chain/safety?token=NOPE');
    expect([noSuch.status, noSuch.json.type]).toEqual([404, 'not_found']);
  });

  it('every view carries an integer as_of_block; /v1/health shows the chain head', async () => {
    for (const v of ['tokens', 'pools', 'positions', 'safety?token=DAI']) {
      const r = await view(`/v1/chain/${v}`);
      expect(Number.isInteger(r.json.as_of_block), v).toBe(true);
    }
    const h = await call(s.url, 'GET', '/v1/health');
    expect(h.json.chain).toEqual({ id: 31337, block: await head() });
  });
});

describe('an unreachable chain RPC', () => {
  const started: TestServer[] = [];
  afterAll(async () => {
    for (const s of started) {
      await s.close();
      removeDir(s.dataDir);
    }
  });

  const startAgainst = async (rpcUrl: string) => {
    const s = await startTestServer({
      chain: true,
      env: { PRESENCE_CHAIN: 'base', PRESENCE_RPC_URL: rpcUrl, PRESENCE_TOKEN_LIST: baseList },
    });
    started.push(s);
    return s;
  };

  // That a refusal ends a chain call at once (not after the RPC timeout) is held by the adapter's
  // own test (viem-chain.test.ts, with an hour-long timeout only a refusal can beat); the bench
  // (section `outage`) times these answers.
  it('refused connections: the server starts, health shows chain null, chain calls are 503 chain_unavailable', async () => {
    const s = await startAgainst('http://127.0.0.1:1');
    const health = await call(s.url, 'GET', '/v1/health');
    expect(health.status).toBe(200);
    expect(health.json.chain).toBeNull();
    for (const [method, url, body] of [
      ['GET', '/v1/chain/pools'],
      ['GET', '/v1/chain/tokens'],
      ['GET', '/v1/wallet'],
      ['POST', '/v1/wallet/intent', { do: 'swap 5 USDC for WETH' }],
    ] as const) {
      const r = await call(s.url, method, url, { key: s.live, body });
      expect([r.status, r.json.type], url).toEqual([503, 'chain_unavailable']);
    }
    // Everything that needs no chain still works.
    const me = await call(s.url, 'GET', '/v1/presence/me', { key: s.live });
    expect([me.status, me.json.wallet.chain]).toEqual([200, 'base']);
  });

  it('an RPC that accepts and never answers: health says chain null, chain calls 503, never a hang', async () => {
    const sockets = new Set<Socket>();
    const blackhole: Server = createServer((sock) => {
      sockets.add(sock);
      sock.on('error', () => undefined);
    });
    await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r));
    const port = (blackhole.address() as { port: number }).port;
    try {
      const s = await startAgainst(`http://127.0.0.1:${port}`);
      // Health answers (chain null) and chain calls end as 503, never a hang: the test's
      // timeout bounds both. How soon each answers (health within its 1 s wait for the head,
      // not the chain's timeout) is timed by the bench, section `outage`.
      const health = await call(s.url, 'GET', '/v1/health');
      expect([health.status, health.json.chain]).toEqual([200, null]);
      const r = await call(s.url, 'GET', '/v1/chain/pools', { key: s.live });
      expect([r.status, r.json.type]).toEqual([503, 'chain_unavailable']);
    } finally {
      for (const sock of sockets) sock.destroy();
      blackhole.close();
    }
  }, 40_000);
});
