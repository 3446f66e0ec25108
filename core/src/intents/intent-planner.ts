// Resolve → quote → value: turns a parsed intent into a concrete plan at one block — the
// transactions to send, what they move, and their USD value at that block's pool prices.
// Plans are pure data; the executor signs and sends them.
import type { Address } from 'viem';
import { isAddress } from 'viem/utils';
import { formatAmount, formatUnits, parseUnits } from '../chain/amounts';
import type { ChainPort, TxRequest } from '../chain/chain-port';
import type { MarketSnapshot } from '../chain/market';
import { resolveToken, type Token, type TokenList, wethOf } from '../chain/token-list';
import { PresenceError } from '../errors/presence-error';
import { unknownToken } from '../replies/replies';
import { type ParsedIntent, unresolved } from './intent-parser';

export type PlannedStep = TxRequest & { label: string };

export type Plan = {
  action: 'swap' | 'send' | 'wrap' | 'unwrap' | 'withdraw';
  summary: string;
  /** What leaves the wallet, as "<decimal> <UNIT>". */
  amount: string;
  valueUsd: bigint;
  tokens: string[];
  to: Address | null;
  block: bigint;
  steps: PlannedStep[];
};

export type PlanContext = {
  chain: ChainPort;
  tokenList: TokenList;
  snapshot: MarketSnapshot;
  owner: Address;
  slippageBps: number;
  /**
   * What the spend policy lets through in a day, in USD (1e18): a router approval is for that
   * much of the token at the quoted price, or the swap's own amount if more — never more than
   * the policy lets spend in the next 24 h (a day's cap; no headroom, since a price move could
   * then approve past it), and enough that the day's other swaps need no approval of their own.
   */
  approvalCapUsd?: bigint;
};

const ETH = { symbol: 'ETH', decimals: 18 } as const;
const MAX_UINT = 2n ** 256n - 1n;
/** Gas for a swap sent right behind its approval, which estimateGas cannot simulate yet. */
const SWAP_AFTER_APPROVE_GAS = 350_000n;

type Asset = { native: true; token: Token } | { native: false; token: Token };

function asset(list: TokenList, symbol: string): Asset {
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
const unit = (a: Asset) => (a.native ? ETH : a.token);
const defaultStable = (list: TokenList, not: Token) => {
  const s = list.tokens.find((t) => t.stable && t.address !== not.address);
  if (!s) throw unresolved('there is no stablecoin in the token list to trade against; name the other token');
  return s;
};

export async function planIntent(parsed: ParsedIntent, ctx: PlanContext): Promise<Plan> {
  const { tokenList: list, snapshot, chain, owner } = ctx;
  const block = snapshot.block;
  const value = (a: Asset, amount: bigint) => {
    const v = snapshot.prices.valueInUsd(a.native ? 'ETH' : a.token, amount);
    if (v === null) throw unresolved(`${unit(a).symbol} has no price at block ${block}, so its value against your policy is unknown`);
    return v;
  };
  const needBalance = async (a: Asset, amount: bigint) => {
    const have = a.native ? (await chain.balances(owner, { block })).eth : await chain.tokenBalance(a.token.address, owner, { block });
    if (have < amount) {
      throw unresolved(`the wallet holds ${formatAmount(have, unit(a))}, less than the ${formatAmount(amount, unit(a))} this needs`);
    }
  };
  const amountOf = (text: string, a: Asset) => {
    try {
      const v = parseUnits(text, unit(a).decimals);
      if (v === 0n) throw unresolved('the amount must be more than zero');
      return v;
    } catch (e) {
      if (e instanceof PresenceError && e.type === 'invalid_request') throw unresolved(e.detail);
      throw e;
    }
  };

  switch (parsed.kind) {
    case 'wrap':
    case 'unwrap': {
      const from: Asset = parsed.kind === 'wrap' ? { native: true, token: wethOf(list) } : { native: false, token: wethOf(list) };
      const amount = amountOf(parsed.amount, from);
      await needBalance(from, amount);
      const tx = parsed.kind === 'wrap' ? chain.buildWrap(amount) : chain.buildUnwrap(amount);
      const text = formatAmount(amount, unit(from));
      return {
        action: parsed.kind,
        summary: `${parsed.kind} ${text}`,
        amount: text,
        valueUsd: value(from, amount),
        tokens: ['ETH', from.token.symbol],
        to: null,
        block,
        steps: [{ ...tx, label: parsed.kind }],
      };
    }
    case 'send': {
      // A mixed-case address carries an EIP-55 checksum: one that does not match is a typo to
      // report, not an address to send to (viem would refuse to encode it, as a 500).
      if (!isAddress(parsed.to)) {
        throw unresolved(
          `${parsed.to} is not a valid address: its letter case does not match its checksum; check it, or write it in lower case`,
        );
      }
      const to = parsed.to as Address;
      const a = asset(list, parsed.token);
      const amount = amountOf(parsed.amount, a);
      await needBalance(a, amount);
      const text = formatAmount(amount, unit(a));
      return {
        action: 'send',
        summary: `send ${text} to ${to}`,
        amount: text,
        valueUsd: value(a, amount),
        tokens: [unit(a).symbol],
        to,
        block,
        steps: [{ ...chain.buildTransfer(a.native ? 'ETH' : a.token.address, to, amount), label: 'transfer' }],
      };
    }
    case 'swap':
    case 'sell':
    case 'buy': {
      let from: Asset;
      let into: Asset;
      let amount: bigint;
      if (parsed.kind === 'swap') {
        from = asset(list, parsed.tokenIn);
        into = asset(list, parsed.tokenOut);
        amount = amountOf(parsed.amount, from);
      } else if (parsed.kind === 'sell') {
        from = asset(list, parsed.token);
        into = parsed.for
          ? asset(list, parsed.for)
          : { native: false, token: from.token.stable ? wethOf(list) : defaultStable(list, from.token) };
        amount = amountOf(parsed.amount, from);
      } else {
        into = asset(list, parsed.token);
        from = parsed.payWith ? asset(list, parsed.payWith) : { native: false, token: defaultStable(list, into.token) };
        const usd = parseUnits(parsed.usd, 18);
        const price = snapshot.prices.priceOf(from.native ? 'ETH' : from.token);
        if (!price) throw unresolved(`${unit(from).symbol} has no price, so $${parsed.usd} of it is unknown`);
        // USD (1e18) → base units of the paying token at this block's price.
        amount = (usd * 10n ** BigInt(unit(from).decimals)) / price;
        if (amount === 0n) throw unresolved('the amount must be more than zero');
      }
      if (from.token.address === into.token.address) {
        throw unresolved(
          from.native !== into.native
            ? `to turn ETH into WETH or back, say "wrap" or "unwrap"`
            : `cannot swap ${unit(from).symbol} for itself`,
        );
      }
      const path = routeBetween(snapshot, list, from.token, into.token);
      // Three independent reads at one block, issued together (one JSON-RPC batch); a short
      // balance is the reason given even when the quote fails too.
      const [, quote, allowance] = await allInOrder([
        needBalance(from, amount),
        chain.quoteExactIn(path, amount, { block }),
        from.native ? Promise.resolve(MAX_UINT) : chain.allowance(from.token.address, owner, list.dex.router, { block }),
      ] as const);
      const minOut = (quote.amountOut * BigInt(10_000 - ctx.slippageBps)) / 10_000n;
      const steps: PlannedStep[] = [];
      const swap = chain.buildSwap({
        path,
        amountIn: amount,
        minAmountOut: minOut,
        recipient: owner,
        nativeIn: from.native,
        nativeOut: into.native,
      });
      if (allowance < amount) {
        const price = snapshot.prices.priceOf(from.token);
        const cap = ctx.approvalCapUsd && price ? (ctx.approvalCapUsd * 10n ** BigInt(from.token.decimals)) / price : 0n;
        // Within uint256 whatever the price (a token priced near zero would make the cap absurd).
        const approve = cap > amount ? (cap > MAX_UINT ? MAX_UINT : cap) : amount;
        steps.push({ ...chain.buildApprove(from.token.address, list.dex.router, approve), label: 'approve' });
        steps.push({ ...swap, gas: SWAP_AFTER_APPROVE_GAS, label: 'swap' });
      } else steps.push({ ...swap, label: 'swap' });
      const text = formatAmount(amount, unit(from));
      return {
        action: 'swap',
        summary: `swap ${text} for at least ${formatUnits(minOut, unit(into).decimals, Math.min(6, unit(into).decimals))} ${unit(into).symbol} (quoted ${formatAmount(quote.amountOut, unit(into))})`,
        amount: text,
        valueUsd: value(from, amount),
        tokens: [unit(from).symbol, unit(into).symbol],
        to: null,
        block,
        steps,
      };
    }
  }
}

/** Promise.all that lets every read finish and throws the first failure by position, so the
 * reason given does not depend on which answer came back first. */
async function allInOrder<T extends readonly unknown[]>(reads: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(reads);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** A direct pool when there is one, else through WETH. */
function routeBetween(snapshot: MarketSnapshot, list: TokenList, a: Token, b: Token): Address[] {
  if (snapshot.poolOf(a, b)) return [a.address, b.address];
  const weth = wethOf(list);
  if (a.address !== weth.address && b.address !== weth.address && snapshot.poolOf(a, weth) && snapshot.poolOf(weth, b)) {
    return [a.address, weth.address, b.address];
  }
  throw unresolved(`there is no pool to trade ${a.symbol} for ${b.symbol}`);
}

/** Converts a cap written as an amount string to USD at the snapshot's prices. */
export function capInUsd(amount: string, list: TokenList, snapshot: MarketSnapshot): bigint {
  const [n, u] = amount.split(' ') as [string, string];
  if (u.toUpperCase() === 'USD') return parseUnits(n, 18);
  const a = u.toUpperCase() === 'ETH' ? null : resolveToken(list, u);
  const decimals = a ? a.decimals : 18;
  const v = snapshot.prices.valueInUsd(a ?? 'ETH', parseUnits(n, decimals));
  // An unpriceable cap cannot be honoured loosely: treat it as zero (everything blocks).
  return v ?? 0n;
}
