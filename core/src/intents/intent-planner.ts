// Resolve → quote → value: turns a parsed intent into a concrete plan at one block (plan.ts),
// by the planner of its action: plan-wrap.ts, plan-send.ts, plan-swap.ts (swap, sell, buy).
// Plans are pure data; the executor signs and sends them.
import { parseUnits } from '../chain/amounts';
import type { MarketSnapshot } from '../chain/market';
import { resolveToken, type TokenList } from '../chain/token-list';
import type { ParsedIntent } from './intent-parser';
import type { Plan, PlanContext } from './plan';
import { planSend } from './plan-send';
import { planSwap } from './plan-swap';
import { planWrap } from './plan-wrap';

export type { Plan, PlanContext, PlannedStep } from './plan';

export async function planIntent(parsed: ParsedIntent, ctx: PlanContext): Promise<Plan> {
  switch (parsed.kind) {
    case 'wrap':
    case 'unwrap':
      return planWrap(parsed, ctx);
    case 'send':
      return planSend(parsed, ctx);
    case 'swap':
    case 'sell':
    case 'buy':
      return planSwap(parsed, ctx);
  }
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
