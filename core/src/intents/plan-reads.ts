// What every planner asks of the intent's words and of the block it plans at: the asset a
// symbol names (ETH is native, the rest from the token list), an amount in its units, whether
// the wallet holds it, and its USD value. Each refusal is an `unresolved` reason the user reads.
import { formatAmount, parseUnits } from '../chain/amounts';
import { resolveToken, type Token, type TokenList, wethOf } from '../chain/token-list';
import { PresenceError } from '../errors/presence-error';
import { unknownToken } from '../replies/replies';
import { unresolved } from './intent-parser';
import type { PlanContext } from './plan';

export const ETH = { symbol: 'ETH', decimals: 18 } as const;
export const MAX_UINT = 2n ** 256n - 1n;

export type Asset = { native: true; token: Token } | { native: false; token: Token };

export function asset(list: TokenList, symbol: string): Asset {
  try {
    if (symbol.toUpperCase() === 'ETH') return { native: true, token: wethOf(list) };
    return { native: false, token: resolveToken(list, symbol) };
  } catch (e) {
    if (e instanceof PresenceError && e.type === 'not_found') {
      throw unresolved(unknownToken(symbol, list));
    }
    throw e;
  }
}
export const unit = (a: Asset) => (a.native ? ETH : a.token);
export const defaultStable = (list: TokenList, not: Token) => {
  const s = list.tokens.find((t) => t.stable && t.address !== not.address);
  if (!s) throw unresolved('there is no stablecoin in the token list to trade against; name the other token');
  return s;
};

/** The reads of one plan, at the snapshot's block. */
export function planReads({ snapshot, chain, owner }: PlanContext) {
  const block = snapshot.block;
  return {
    value(a: Asset, amount: bigint) {
      const v = snapshot.prices.valueInUsd(a.native ? 'ETH' : a.token, amount);
      if (v === null) throw unresolved(`${unit(a).symbol} has no price at block ${block}, so its value against your policy is unknown`);
      return v;
    },
    async needBalance(a: Asset, amount: bigint) {
      const have = a.native ? (await chain.balances(owner, { block })).eth : await chain.tokenBalance(a.token.address, owner, { block });
      if (have < amount) {
        throw unresolved(`the wallet holds ${formatAmount(have, unit(a))}, less than the ${formatAmount(amount, unit(a))} this needs`);
      }
    },
    amountOf(text: string, a: Asset) {
      try {
        const v = parseUnits(text, unit(a).decimals);
        if (v === 0n) throw unresolved('the amount must be more than zero');
        return v;
      } catch (e) {
        if (e instanceof PresenceError && e.type === 'invalid_request') throw unresolved(e.detail);
        throw e;
      }
    },
  };
}

export type PlanReads = ReturnType<typeof planReads>;
