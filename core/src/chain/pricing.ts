// USD prices derived from pool reserves at one block, bigint only. Stablecoins are exactly
// 1 USD by declaration; WETH takes its price from the deepest WETH/stable pool; every other
// token from its WETH pool (or, failing that, its deepest stable pool).
import type { Address } from 'viem';
import { USD_ONE } from './amounts';
import { type Token, type TokenList, wethOf } from './token-list';

/** Reserves of one pool, oriented as (tokenA, tokenB). */
export interface PoolReserves {
  address: Address;
  tokenA: Token;
  tokenB: Token;
  reserveA: bigint;
  reserveB: bigint;
}

/** Prices at one block. USD amounts are bigint scaled by 10^18 (see amounts.USD_DECIMALS). */
export interface PriceBook {
  readonly block: bigint;
  /** USD per one whole token (1e18-scaled), or null when no pool prices it. "ETH" = WETH. */
  priceOf(token: Token | Address | 'ETH'): bigint | null;
  /** USD value (1e18-scaled) of `amount` base units, or null when the token has no price. */
  valueInUsd(token: Token | Address | 'ETH', amount: bigint): bigint | null;
}

/** Price of X given a pool X/Y and Y's price: (reserveY / 10^decY) * priceY / (reserveX / 10^decX). */
function priceThrough(reserveX: bigint, decX: number, reserveY: bigint, decY: number, priceY: bigint): bigint | null {
  if (reserveX === 0n || reserveY === 0n) return null;
  return (reserveY * priceY * 10n ** BigInt(decX)) / (reserveX * 10n ** BigInt(decY));
}

/** The side of `pool` holding `token`, as [own reserve, other token, other reserve]. */
function sides(pool: PoolReserves, token: Token): [bigint, Token, bigint] | null {
  if (pool.tokenA.address === token.address) return [pool.reserveA, pool.tokenB, pool.reserveB];
  if (pool.tokenB.address === token.address) return [pool.reserveB, pool.tokenA, pool.reserveA];
  return null;
}

/** Prices `token` through the pool, paired with an already-priced token, whose priced side is
 * worth the most USD (the deepest). */
function priceViaDeepest(
  token: Token,
  pools: PoolReserves[],
  known: (t: Token) => bigint | null,
  accept: (other: Token) => boolean,
): bigint | null {
  let best: { depth: bigint; price: bigint } | null = null;
  for (const pool of pools) {
    const s = sides(pool, token);
    if (!s) continue;
    const [own, other, otherReserve] = s;
    if (!accept(other)) continue;
    const otherPrice = known(other);
    if (otherPrice === null) continue;
    const price = priceThrough(own, token.decimals, otherReserve, other.decimals, otherPrice);
    if (price === null) continue;
    const depth = (otherReserve * otherPrice) / 10n ** BigInt(other.decimals);
    if (!best || depth > best.depth) best = { depth, price };
  }
  return best?.price ?? null;
}

export function buildPriceBook(list: TokenList, pools: PoolReserves[], block: bigint): PriceBook {
  const weth = wethOf(list);
  const prices = new Map<Address, bigint | null>();
  for (const t of list.tokens) if (t.stable) prices.set(t.address, USD_ONE);
  const known = (t: Token) => prices.get(t.address) ?? null;

  if (!weth.stable) {
    prices.set(
      weth.address,
      priceViaDeepest(weth, pools, known, (o) => o.stable === true),
    );
  }
  for (const t of list.tokens) {
    if (prices.has(t.address)) continue;
    const viaWeth = priceViaDeepest(t, pools, known, (o) => o.address === weth.address);
    prices.set(t.address, viaWeth ?? priceViaDeepest(t, pools, known, (o) => o.stable === true));
  }

  const lookup = (token: Token | Address | 'ETH'): Token | undefined => {
    if (token === 'ETH') return weth;
    if (typeof token === 'string') return list.tokens.find((t) => t.address === token);
    return token;
  };
  return {
    block,
    priceOf(token) {
      const t = lookup(token);
      return t ? (prices.get(t.address) ?? null) : null;
    },
    valueInUsd(token, amount) {
      const t = lookup(token);
      const price = t ? prices.get(t.address) : null;
      if (!t || price === null || price === undefined) return null;
      return (amount * price) / 10n ** BigInt(t.decimals);
    },
  };
}
