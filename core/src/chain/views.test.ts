// Chain views against the real devnet: shapes (validated by their zod schemas), pools that
// match getReserves, the per-block cache, positions with LP shares, and safety verdicts from
// simulated round trips.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Devnet, startDevnet } from '@presence/devnet';
import { PoolsViewSchema, PositionsViewSchema, SafetyViewSchema, TokensViewSchema } from '@presence/protocol';
import { type Address, createPublicClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairAbi } from './abis';
import { parseUnits } from './amounts';
import type { ChainPort } from './chain-port';
import { createViemChain } from './viem/viem-chain';
import { type ChainViews, createChainViews } from './views';

let dataDir: string;
let devnet: Devnet;
let chain: ChainPort;
let views: ChainViews;
const calls: string[] = [];

/** Counts every port call, so the cache can be observed from outside. */
function counting(port: ChainPort): ChainPort {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return value.apply(target, args);
      };
    },
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'presence-views-'));
  devnet = await startDevnet({ dataDir });
  chain = counting(createViemChain({ rpcUrl: devnet.rpcUrl, tokenList: devnet.deployment, timeoutMs: 3000 }));
  views = createChainViews({ chain, tokenList: devnet.deployment });
});

afterAll(async () => {
  await devnet?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function mineOne() {
  const key = generatePrivateKey();
  const me = privateKeyToAccount(key).address;
  await devnet.fund(me);
}

describe('tokens view', () => {
  it('lists every token with a USD price', async () => {
    const view = TokensViewSchema.parse(await views.tokens());
    const price = Object.fromEntries(view.tokens.map((t) => [t.symbol, t.price_usd]));
    expect(price).toEqual({ WETH: '3000.00 USD', USDC: '1.00 USD', DAI: '1.00 USD', SCAM: '0.003 USD' });
    expect(view.as_of_block).toBeGreaterThan(0);
  });
});

describe('pools view', () => {
  it('reports every pool with reserves equal to getReserves at as_of_block', async () => {
    const view = PoolsViewSchema.parse(await views.pools());
    expect(view.pools.map((p) => p.pair)).toEqual(['WETH-USDC', 'WETH-DAI', 'WETH-SCAM']);
    const client = createPublicClient({ transport: http(devnet.rpcUrl) });
    for (const pool of view.pools) {
      const [r0, r1] = await client.readContract({
        address: pool.address as Address,
        abi: pairAbi,
        functionName: 'getReserves',
        blockNumber: BigInt(pool.as_of_block),
      });
      const [a, b] = pool.pair.split('-') as [string, string];
      const token = (s: string) => devnet.deployment.tokens.find((t) => t.symbol === s);
      const aFirst = (token(a)?.address.toLowerCase() ?? '') < (token(b)?.address.toLowerCase() ?? '');
      const raw = (s: string) => parseUnits((pool.reserves[s] ?? '').split(' ')[0] ?? '', token(s)?.decimals ?? 0);
      expect(raw(a)).toBe(aFirst ? r0 : r1);
      expect(raw(b)).toBe(aFirst ? r1 : r0);
    }
    const usdc = view.pools[0];
    expect(usdc).toMatchObject({ price: '3000 USDC per WETH', depth_usd: 6_000_000 });
    expect(view.pools[2]).toMatchObject({ pair: 'WETH-SCAM', depth_usd: 30_000 });
  });

  it('answers one pair in the orientation asked', async () => {
    const view = await views.pools('usdc-weth');
    expect(view.pools).toHaveLength(1);
    expect(view.pools[0]).toMatchObject({
      pair: 'USDC-WETH',
      reserves: { USDC: '3000000 USDC', WETH: '1000 WETH' },
      price: '0.000333333 WETH per USDC',
    });
  });

  it('404s unknown tokens and missing pools, 400s malformed pairs', async () => {
    await expect(views.pools('WETH-XYZ')).rejects.toMatchObject({ type: 'not_found' });
    await expect(views.pools('USDC-DAI')).rejects.toMatchObject({ type: 'not_found' });
    await expect(views.pools('WETHUSDC')).rejects.toMatchObject({ type: 'invalid_request' });
    await expect(views.pools('WETH-USDC-DAI')).rejects.toMatchObject({ type: 'invalid_request' });
    await expect(views.pools('USDC-USDC')).rejects.toMatchObject({ type: 'invalid_request' });
  });

  it('costs one eth_blockNumber when the block has not moved, and refreshes when it has', async () => {
    const first = await views.pools();
    calls.length = 0;
    // What a cached call costs in time is the bench's (GET /v1/chain/pools within one block);
    // here, what it asks the chain: the block number, nothing else.
    for (let i = 0; i < 50; i++) await views.pools();
    expect(calls.every((c) => c === 'blockNumber')).toBe(true);
    expect(calls).toHaveLength(50);

    await mineOne();
    calls.length = 0;
    const next = await views.pools();
    expect(next.as_of_block).toBeGreaterThan(first.as_of_block);
    expect(calls.filter((c) => c === 'pair').length).toBeGreaterThan(0);
  });
});

describe('positions view', () => {
  it('prices a funded wallet', async () => {
    const me = privateKeyToAccount(generatePrivateKey()).address;
    await devnet.fund(me);
    const view = PositionsViewSchema.parse(await views.positions(me));
    const by = Object.fromEntries(view.holdings.map((h) => [h.symbol, [h.amount, h.value_usd]]));
    expect(by).toEqual({
      ETH: ['10 ETH', '30000.00 USD'],
      WETH: ['5 WETH', '15000.00 USD'],
      USDC: ['10000 USDC', '10000.00 USD'],
      DAI: ['10000 DAI', '10000.00 USD'],
      SCAM: ['0 SCAM', '0.00 USD'],
    });
    expect(view.total_usd).toBe('65000.00 USD');
    expect(view.lp).toEqual([]);
  });

  it('includes LP positions priced by their share of the reserves', async () => {
    const view = await views.positions(devnet.deployment.devnet.deployer);
    expect(view.lp.map((l) => l.pair)).toEqual(['WETH-USDC', 'WETH-DAI', 'WETH-SCAM']);
    const usdc = view.lp[0];
    // The deployer owns all liquidity but Uniswap's locked minimum.
    expect(usdc?.share_bps).toBe(9999);
    expect(usdc?.value_usd).toBe('6000000.00 USD');
  });

  it('needs an address', async () => {
    await expect(views.positions()).rejects.toMatchObject({ type: 'invalid_request' });
    await expect(views.positions('0x123' as Address)).rejects.toMatchObject({ type: 'invalid_request' });
  });
});

describe('safety view', () => {
  it('flags SCAM as unsafe with the measured 25% sell tax and a mint-capable owner', async () => {
    const view = SafetyViewSchema.parse(await views.safety('SCAM'));
    expect(view.verdict).toBe('unsafe');
    expect(view.measured.sell_tax_bps).toBeGreaterThanOrEqual(2499);
    expect(view.measured.sell_tax_bps).toBeLessThanOrEqual(2501);
    expect(view.measured.buy_tax_bps).toBe(0);
    expect(view.measured.round_trip_loss_bps).toBeGreaterThan(2500);
    expect(view.owner).toBe(devnet.deployment.devnet.deployer);
    expect(view.can_mint).toBe(true);
    expect(view.depth_usd).toBe(30_000);
    expect(view.reasons.join(' ')).toMatch(/sells are taxed 25\.00%/);
    expect(view.reasons.join(' ')).toMatch(/can mint/);
    // written as the chat writes a pool's depth (whole dollars, thousands marked), not as 30000 USD
    expect(view.reasons).toContain('thin liquidity: the WETH-SCAM pool holds about 30,000 USD');
  });

  it.each(['USDC', 'DAI'])('finds %s safe: no tax, no owner, deep pool', async (symbol) => {
    const view = SafetyViewSchema.parse(await views.safety(symbol));
    expect(view).toMatchObject({
      verdict: 'safe',
      measured: { buy_tax_bps: 0, sell_tax_bps: 0 },
      owner: null,
      can_mint: false,
    });
    // Two 0.3% pool fees and a sliver of price impact.
    expect(view.measured.round_trip_loss_bps).toBeGreaterThanOrEqual(59);
    expect(view.measured.round_trip_loss_bps).toBeLessThan(70);
    expect(view.depth_usd).toBeGreaterThan(5_000_000);
  });

  it('accepts an address, knows WETH, and 404s unknown tokens', async () => {
    const scam = devnet.deployment.tokens.find((t) => t.symbol === 'SCAM')?.address ?? '';
    expect((await views.safety(scam.toLowerCase())).token).toBe('SCAM');
    expect((await views.safety('WETH')).verdict).toBe('safe');
    await expect(views.safety('NOPE')).rejects.toMatchObject({ type: 'not_found' });
  });

  it('simulates only: no block, no deployment, no nonce used', async () => {
    const before = await chain.blockNumber();
    await views.safety('DAI');
    await mineOne(); // new block so the DAI report is recomputed, not cached
    const block = await chain.blockNumber();
    await views.safety('DAI');
    expect(await chain.blockNumber()).toBe(block);
    expect(block).toBeGreaterThan(before);
    expect(await chain.getCode('0x5afe5afe5afe5afe5afe5afe5afe5afe5afe5afe')).toBe('0x');
  });
});
