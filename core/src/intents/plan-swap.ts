// Planning a trade — swap, sell or buy — through the DEX router: which asset leaves and which
// arrives, the route, the quote at the block, and an approval of the router when the wallet's
// allowance is short.
import type { Address } from 'viem';
import { formatAmount, formatUnits, parseUnits } from '../chain/amounts';
import type { MarketSnapshot } from '../chain/market';
import { type Token, type TokenList, wethOf } from '../chain/token-list';
import { type ParsedIntent, unresolved } from './intent-parser';
import type { Plan, PlanContext, PlannedStep } from './plan';
import { type Asset, asset, defaultStable, MAX_UINT, type PlanReads, planReads, unit } from './plan-reads';

/** Gas for a swap sent right behind its approval, which estimateGas cannot simulate yet. */
const SWAP_AFTER_APPROVE_GAS = 350_000n;

type Trade = Extract<ParsedIntent, { kind: 'swap' | 'sell' | 'buy' }>;

export async function planSwap(parsed: Trade, ctx: PlanContext): Promise<Plan> {
  const { tokenList: list, snapshot, chain, owner } = ctx;
  const block = snapshot.block;
  const reads = planReads(ctx);
  const { from, into, amount } = sidesOf(parsed, ctx, reads);
  const path = routeBetween(snapshot, list, from.token, into.token);
  // Three independent reads at one block, issued together (one JSON-RPC batch); a short
  // balance is the reason given even when the quote fails too.
  const [, quote, allowance] = await allInOrder([
    reads.needBalance(from, amount),
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
    steps.push({ ...chain.buildApprove(from.token.address, list.dex.router, approvalOf(from.token, amount, ctx)), label: 'approve' });
    steps.push({ ...swap, gas: SWAP_AFTER_APPROVE_GAS, label: 'swap' });
  } else steps.push({ ...swap, label: 'swap' });
  const text = formatAmount(amount, unit(from));
  const out = unit(into);
  return {
    action: 'swap',
    summary: `swap ${text} for at least ${formatUnits(minOut, out.decimals, Math.min(6, out.decimals))} ${out.symbol} (quoted ${formatAmount(quote.amountOut, out)})`,
    amount: text,
    valueUsd: reads.value(from, amount),
    tokens: [unit(from).symbol, out.symbol],
    to: null,
    block,
    steps,
  };
}

/** What leaves the wallet, what arrives, and how much leaves, as each form of trade says it. */
function sidesOf(parsed: Trade, { tokenList: list, snapshot }: PlanContext, reads: PlanReads) {
  let from: Asset;
  let into: Asset;
  let amount: bigint;
  if (parsed.kind === 'swap') {
    from = asset(list, parsed.tokenIn);
    into = asset(list, parsed.tokenOut);
    amount = reads.amountOf(parsed.amount, from);
  } else if (parsed.kind === 'sell') {
    from = asset(list, parsed.token);
    into = parsed.for
      ? asset(list, parsed.for)
      : { native: false, token: from.token.stable ? wethOf(list) : defaultStable(list, from.token) };
    amount = reads.amountOf(parsed.amount, from);
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
      from.native !== into.native ? `to turn ETH into WETH or back, say "wrap" or "unwrap"` : `cannot swap ${unit(from).symbol} for itself`,
    );
  }
  return { from, into, amount };
}

/** How much of the token the router is approved for (PlanContext.approvalCapUsd). */
function approvalOf(token: Token, amount: bigint, ctx: PlanContext): bigint {
  const price = ctx.snapshot.prices.priceOf(token);
  const cap = ctx.approvalCapUsd && price ? (ctx.approvalCapUsd * 10n ** BigInt(token.decimals)) / price : 0n;
  // Within uint256 whatever the price (a token priced near zero would make the cap absurd).
  return cap > amount ? (cap > MAX_UINT ? MAX_UINT : cap) : amount;
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
