// Prices from reserves: pure cases on synthetic pools, then the real devnet market.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Devnet, startDevnet } from '@presence/devnet';
import { parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USD_ONE } from './amounts';
import { createMarket } from './market';
import { buildPriceBook, type PoolReserves } from './pricing';
import { parseTokenList, type Token } from './token-list';
import { createViemChain } from './viem/viem-chain';

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const;
const list = parseTokenList({
  chain: { id: 1, name: 'test' },
  dex: { kind: 'uniswap-v2', factory: a(1), router: a(2), weth: a(10) },
  tokens: [
    { symbol: 'WETH', address: a(10), decimals: 18 },
    { symbol: 'USDC', address: a(11), decimals: 6, stable: true },
    { symbol: 'DAI', address: a(12), decimals: 18, stable: true },
    { symbol: 'FOO', address: a(13), decimals: 8 },
    { symbol: 'BAR', address: a(14), decimals: 18 },
    { symbol: 'LONE', address: a(15), decimals: 18 },
  ],
});
const t = (symbol: string) => list.tokens.find((x) => x.symbol === symbol) as Token;
const pool = (x: string, y: string, rx: bigint, ry: bigint): PoolReserves => ({
  address: a(99),
  tokenA: t(x),
  tokenB: t(y),
  reserveA: rx,
  reserveB: ry,
});

describe('price book (bigint, from reserves)', () => {
  const pools = [
    pool('WETH', 'USDC', 1000n * 10n ** 18n, 3_000_000n * 10n ** 6n), // deep: 3000
    pool('DAI', 'WETH', 2000n * 10n ** 18n, 1n * 10n ** 18n), // shallow: 2000, ignored for WETH
    pool('FOO', 'WETH', 50n * 10n ** 8n, 10n * 10n ** 18n), // 1 FOO = 0.2 WETH = 600 USD
    pool('BAR', 'DAI', 4n * 10n ** 18n, 1n * 10n ** 18n), // no WETH pool: 0.25 USD via DAI
    pool('USDC', 'DAI', 98n * 10n ** 6n, 100n * 10n ** 18n), // a depeg does not move stables
  ];
  const book = buildPriceBook(list, pools, 7n);

  it('prices stablecoins at exactly 1 USD', () => {
    expect(book.priceOf(t('USDC'))).toBe(USD_ONE);
    expect(book.priceOf(t('DAI'))).toBe(USD_ONE);
  });
  it('prices WETH from its deepest stable pool', () => {
    expect(book.priceOf(t('WETH'))).toBe(3000n * USD_ONE);
    expect(book.priceOf('ETH')).toBe(3000n * USD_ONE);
  });
  it('prices other tokens through WETH, else a stable pool, else not at all', () => {
    expect(book.priceOf(t('FOO'))).toBe(600n * USD_ONE);
    expect(book.priceOf(t('BAR'))).toBe(USD_ONE / 4n);
    expect(book.priceOf(t('LONE'))).toBeNull();
  });
  it('values amounts in USD with the token decimals', () => {
    expect(book.valueInUsd(t('FOO'), 25n * 10n ** 7n)).toBe(1500n * USD_ONE); // 2.5 FOO
    expect(book.valueInUsd(t('USDC'), 12_345_678n)).toBe((12_345_678n * USD_ONE) / 10n ** 6n);
    expect(book.valueInUsd(t('LONE'), 1n)).toBeNull();
    expect(book.block).toBe(7n);
  });
});

describe('prices on the devnet', () => {
  let dataDir: string;
  let devnet: Devnet;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'presence-pricing-'));
    devnet = await startDevnet({ dataDir });
  });
  afterAll(async () => {
    await devnet?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('puts WETH near 3000 USD and stables at exactly 1, also after trades move the pool', async () => {
    const chain = createViemChain({ rpcUrl: devnet.rpcUrl, tokenList: devnet.deployment, timeoutMs: 3000 });
    const market = createMarket({ chain, tokenList: devnet.deployment });
    const weth = devnet.deployment.tokens[0] as Token;
    const usdc = devnet.deployment.tokens[1] as Token;
    const first = await market.snapshot();
    expect(first.prices.priceOf(weth)).toBe(3000n * USD_ONE);
    expect(first.prices.priceOf(usdc)).toBe(USD_ONE);

    // Buy WETH with 6000 USDC: the USDC pool becomes the deepest stable pool and WETH dearer.
    const key = generatePrivateKey();
    const me = privateKeyToAccount(key).address;
    await devnet.fund(me);
    const send = async (tx: Parameters<typeof chain.signTransaction>[1]) => {
      const signed = await chain.signTransaction(key, tx, await chain.nonceOf(me, 'pending'));
      await chain.waitForReceipt(await chain.sendRaw(signed.raw));
    };
    await send(chain.buildApprove(usdc.address, devnet.deployment.dex.router, parseUnits('6000', 6)));
    const quote = await chain.quoteExactIn([usdc.address, weth.address], parseUnits('6000', 6));
    await send(chain.buildSwap({ path: quote.path, amountIn: quote.amountIn, minAmountOut: quote.amountOut, recipient: me }));

    const later = await market.snapshot();
    expect(later.block).toBeGreaterThan(first.block);
    const p = later.prices.priceOf(weth) ?? 0n;
    expect(p).toBeGreaterThan(3000n * USD_ONE);
    expect(p).toBeLessThan(3030n * USD_ONE); // within 1%
    expect(later.prices.priceOf(usdc)).toBe(USD_ONE);
    const scam = devnet.deployment.tokens[3] as Token;
    // 5 WETH : 5,000,000 SCAM at ~3000 USD per WETH.
    expect(later.prices.priceOf(scam)).toBe((p * 5n) / 5_000_000n);
  });
});
