// The chain views (tokens, pools, positions, safety) as served by GET /v1/chain/<view>. Each
// is computed from one market snapshot and cached for the block it describes, so repeating
// a view within a block costs a single eth_blockNumber.
import type { PoolsView, PoolView, PositionsView, SafetyView, TokensView } from '@presence/protocol';
import type { Address } from 'viem';
import { getAddress, isAddress } from 'viem/utils';
import { invalidRequest, notFound } from '../errors/presence-error';
import { formatAmount, formatRatio, formatUnits, formatUsd, formatUsdPrice, USD_ONE, usdToNumber } from './amounts';
import { createBlockCache } from './block-cache';
import type { ChainReads } from './chain-reads';
import { createMarket, type Market, type MarketSnapshot, type Pool } from './market';
import type { PriceBook } from './pricing';
import { createSafetyChecker, depthOf } from './safety';
import { resolveToken, type Token, type TokenList } from './token-list';

export interface ChainViews {
  tokens(): Promise<TokensView>;
  /** All pools between listed tokens, or the one named "A-B" (oriented as asked). */
  pools(pair?: string): Promise<PoolsView>;
  /** Holdings (ETH + listed tokens) and LP positions of `address` (default: the owner). */
  positions(address?: Address): Promise<PositionsView>;
  /** Safety verdict for a listed token, by symbol or address. */
  safety(token: string): Promise<SafetyView>;
  /** Prices at the current block, for valuing intents with the same numbers the views show. */
  prices(): Promise<PriceBook>;
  readonly market: Market;
}

const PAIR = /^([A-Za-z][A-Za-z0-9.]*)-([A-Za-z][A-Za-z0-9.]*)$/;

export function createChainViews(deps: { chain: ChainReads; tokenList: TokenList; owner?: Address }): ChainViews {
  const { chain, tokenList } = deps;
  const market = createMarket({ chain, tokenList });
  const safetyChecker = createSafetyChecker({ chain, tokenList });
  const cache = createBlockCache<unknown>();
  const cached = async <T>(key: string, compute: (m: MarketSnapshot) => Promise<T> | T): Promise<T> => {
    const snap = await market.snapshot();
    return cache.get(snap.block, key, async () => compute(snap)) as Promise<T>;
  };

  function poolView(snap: MarketSnapshot, pool: Pool, flip: boolean): PoolView {
    const [a, b, ra, rb] = flip
      ? [pool.tokenB, pool.tokenA, pool.reserveB, pool.reserveA]
      : [pool.tokenA, pool.tokenB, pool.reserveA, pool.reserveB];
    // B per one A, 1e18-scaled: (rb / 10^decB) / (ra / 10^decA).
    const price = ra === 0n ? 0n : (rb * 10n ** BigInt(a.decimals) * USD_ONE) / (ra * 10n ** BigInt(b.decimals));
    return {
      pair: `${a.symbol}-${b.symbol}`,
      address: pool.address,
      reserves: { [a.symbol]: formatAmount(ra, a), [b.symbol]: formatAmount(rb, b) },
      price: `${formatRatio(price)} ${b.symbol} per ${a.symbol}`,
      depth_usd: usdToNumber(depthOf(snap, pool)),
      as_of_block: Number(snap.block),
    };
  }

  function parsePair(pair: string): [Token, Token] {
    const m = PAIR.exec(pair.trim());
    if (!m?.[1] || !m[2]) throw invalidRequest(`pair must look like "WETH-USDC", got "${pair}"`);
    const a = resolveToken(tokenList, m[1]);
    const b = resolveToken(tokenList, m[2]);
    if (a.address === b.address) throw invalidRequest(`a pair needs two different tokens: "${pair}"`);
    return [a, b];
  }

  return {
    market,

    tokens: () =>
      cached('tokens', (snap) => ({
        as_of_block: Number(snap.block),
        tokens: tokenList.tokens.map((t) => {
          const price = snap.prices.priceOf(t);
          return {
            symbol: t.symbol,
            address: t.address,
            decimals: t.decimals,
            stable: t.stable === true,
            price_usd: price === null ? null : formatUsdPrice(price),
          };
        }),
      })),

    async pools(pair) {
      if (pair === undefined) {
        return cached('pools', (snap) => ({
          as_of_block: Number(snap.block),
          pools: snap.pools.map((p) => poolView(snap, p, false)),
        }));
      }
      const [a, b] = parsePair(pair);
      return cached(`pools:${a.address}:${b.address}`, (snap) => {
        const pool = snap.poolOf(a, b);
        if (!pool) throw notFound(`no ${a.symbol}-${b.symbol} pool on ${tokenList.chain.name}`);
        return { as_of_block: Number(snap.block), pools: [poolView(snap, pool, pool.tokenA.address !== a.address)] };
      });
    },

    async positions(address) {
      const who = address ?? deps.owner;
      if (!who || !isAddress(who, { strict: false })) throw invalidRequest('positions needs a wallet address');
      const owner = getAddress(who);
      return cached(`positions:${owner}`, async (snap) => {
        const block = snap.block;
        const [balances, lpBalances] = await Promise.all([
          chain.balances(owner, { block }),
          Promise.all(snap.pools.map((p) => chain.tokenBalance(p.address, owner, { block }))),
        ]);
        let total = 0n;
        const holdings: PositionsView['holdings'] = [];
        const ethValue = snap.prices.valueInUsd('ETH', balances.eth);
        total += ethValue ?? 0n;
        holdings.push({
          symbol: 'ETH',
          address: null,
          amount: formatAmount(balances.eth, { symbol: 'ETH', decimals: 18 }),
          value_usd: ethValue === null ? null : formatUsd(ethValue),
        });
        for (const { token, amount } of balances.tokens) {
          const value = snap.prices.valueInUsd(token, amount);
          total += value ?? 0n;
          holdings.push({
            symbol: token.symbol,
            address: token.address,
            amount: formatAmount(amount, token),
            value_usd: value === null ? null : formatUsd(value),
          });
        }

        const held = snap.pools.map((pool, i) => ({ pool, liquidity: lpBalances[i] ?? 0n })).filter((x) => x.liquidity > 0n);
        const supplies = await Promise.all(held.map((x) => chain.totalSupply(x.pool.address, { block })));
        const lp: PositionsView['lp'] = held.map(({ pool, liquidity }, i) => {
          const supply = supplies[i] ?? 0n;
          const amountA = supply === 0n ? 0n : (pool.reserveA * liquidity) / supply;
          const amountB = supply === 0n ? 0n : (pool.reserveB * liquidity) / supply;
          const va = snap.prices.valueInUsd(pool.tokenA, amountA);
          const vb = snap.prices.valueInUsd(pool.tokenB, amountB);
          const value = va === null || vb === null ? null : va + vb;
          total += value ?? 0n;
          return {
            pair: pool.name,
            address: pool.address,
            liquidity: formatUnits(liquidity, 18),
            share_bps: supply === 0n ? 0 : Number((liquidity * 10_000n) / supply),
            underlying: {
              [pool.tokenA.symbol]: formatAmount(amountA, pool.tokenA),
              [pool.tokenB.symbol]: formatAmount(amountB, pool.tokenB),
            },
            value_usd: value === null ? null : formatUsd(value),
          };
        });
        return { as_of_block: Number(block), address: owner, holdings, lp, total_usd: formatUsd(total) };
      });
    },

    async safety(tokenRef) {
      const token = resolveToken(tokenList, tokenRef);
      return cached(`safety:${token.address}`, (snap) => safetyChecker.check(token, snap));
    },

    async prices() {
      return (await market.snapshot()).prices;
    },
  };
}
