// Planning a wrap or an unwrap: ETH into WETH through the WETH contract, or back.
import { formatAmount } from '../chain/amounts';
import { wethOf } from '../chain/token-list';
import type { ParsedIntent } from './intent-parser';
import type { Plan, PlanContext } from './plan';
import { type Asset, planReads, unit } from './plan-reads';

export async function planWrap(parsed: Extract<ParsedIntent, { kind: 'wrap' | 'unwrap' }>, ctx: PlanContext): Promise<Plan> {
  const { tokenList: list, chain } = ctx;
  const reads = planReads(ctx);
  const from: Asset = parsed.kind === 'wrap' ? { native: true, token: wethOf(list) } : { native: false, token: wethOf(list) };
  const amount = reads.amountOf(parsed.amount, from);
  await reads.needBalance(from, amount);
  const tx = parsed.kind === 'wrap' ? chain.buildWrap(amount) : chain.buildUnwrap(amount);
  const text = formatAmount(amount, unit(from));
  return {
    action: parsed.kind,
    summary: `${parsed.kind} ${text}`,
    amount: text,
    valueUsd: reads.value(from, amount),
    tokens: ['ETH', from.token.symbol],
    to: null,
    block: ctx.snapshot.block,
    steps: [{ ...tx, label: parsed.kind }],
  };
}
