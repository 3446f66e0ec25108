// The market at one block: reserves of every pool between two listed tokens, and the prices
// they imply. Everything the views show is derived from one snapshot, so a view is
// consistent with itself and costs one eth_blockNumber when the block has not moved.
import type { Address } from 'viem';
import { createBlockCache } from './block-cache';
import type { ChainReads } from './chain-reads';
import { buildPriceBook, type PoolReserves, type PriceBook } from './pricing';
import type { Token, TokenList } from './token-list';

/** A pool oriented by list order: "WETH-USDC" when WETH is listed before USDC. */
export interface Pool extends PoolReserves {
  name: string;
}

export interface MarketSnapshot {
  block: bigint;
  pools: Pool[];
  prices: PriceBook;
  /** The pool of two tokens (either order), oriented as in the snapshot. */
  poolOf(a: Token, b: Token): Pool | undefined;
}

export interface Market {
  /** The current block, sharing one in-flight eth_blockNumber among concurrent callers. */
  currentBlock(): Promise<bigint>;
  /** The snapshot at `block` (default: current), computed once per block. */
  snapshot(block?: bigint): Promise<MarketSnapshot>;
}

export function createMarket(deps: { chain: ChainReads; tokenList: TokenList }): Market {
  const { chain, tokenList } = deps;
  const combos: [Token, Token][] = [];
  tokenList.tokens.forEach((a, i) => {
    for (const b of tokenList.tokens.slice(i + 1)) combos.push([a, b]);
  });
  const cache = createBlockCache<MarketSnapshot>();

  let inflight: Promise<bigint> | null = null;
  const currentBlock = () => {
    inflight ??= chain.blockNumber().finally(() => {
      inflight = null;
    });
    return inflight;
  };

  async function read(block: bigint): Promise<MarketSnapshot> {
    const found = await Promise.all(combos.map(([a, b]) => chain.pair(a.address, b.address, { block })));
    const pools: Pool[] = [];
    found.forEach((p, i) => {
      const combo = combos[i];
      if (!p || !combo) return;
      const [a, b] = combo;
      pools.push({
        name: `${a.symbol}-${b.symbol}`,
        address: p.address,
        tokenA: a,
        tokenB: b,
        reserveA: p.reserveA,
        reserveB: p.reserveB,
      });
    });
    const byKey = new Map<string, Pool>();
    for (const p of pools) byKey.set(key(p.tokenA.address, p.tokenB.address), p);
    return {
      block,
      pools,
      prices: buildPriceBook(tokenList, pools, block),
      poolOf: (a, b) => byKey.get(key(a.address, b.address)),
    };
  }

  return {
    currentBlock,
    async snapshot(block) {
      const at = block ?? (await currentBlock());
      return cache.get(at, 'market', () => read(at));
    },
  };
}

const key = (a: Address, b: Address) => [a, b].sort().join(':');
