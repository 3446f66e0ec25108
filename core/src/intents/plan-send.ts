// Planning a send: ETH or a token from the wallet to an address.
import type { Address } from 'viem';
import { isAddress } from 'viem/utils';
import { formatAmount } from '../chain/amounts';
import { type ParsedIntent, unresolved } from './intent-parser';
import type { Plan, PlanContext } from './plan';
import { asset, planReads, unit } from './plan-reads';

export async function planSend(parsed: Extract<ParsedIntent, { kind: 'send' }>, ctx: PlanContext): Promise<Plan> {
  // A mixed-case address carries an EIP-55 checksum: one that does not match is a typo to
  // report, not an address to send to (viem would refuse to encode it, as a 500).
  if (!isAddress(parsed.to)) {
    throw unresolved(
      `${parsed.to} is not a valid address: its letter case does not match its checksum; check it, or write it in lower case`,
    );
  }
  const to = parsed.to as Address;
  const reads = planReads(ctx);
  const a = asset(ctx.tokenList, parsed.token);
  const amount = reads.amountOf(parsed.amount, a);
  await reads.needBalance(a, amount);
  const text = formatAmount(amount, unit(a));
  return {
    action: 'send',
    summary: `send ${text} to ${to}`,
    amount: text,
    valueUsd: reads.value(a, amount),
    tokens: [unit(a).symbol],
    to,
    block: ctx.snapshot.block,
    steps: [{ ...ctx.chain.buildTransfer(a.native ? 'ETH' : a.token.address, to, amount), label: 'transfer' }],
  };
}
