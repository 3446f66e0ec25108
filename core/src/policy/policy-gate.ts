// The spend-policy gate: the second of the two gates every action passes (the first is the
// key's scopes). Pure: given the policy, the action's USD value at the quoted block and
// today's spend, it answers execute or hold, or throws policy_block naming the rule and the
// numbers. Caps may be written in USD or in a token; `usdOf` converts them at the same
// block's prices so both sides of every comparison are priced alike.
import type { PolicyDocument } from '@presence/protocol';
import { formatUsd } from '../chain/amounts';
import { PresenceError } from '../errors/presence-error';
import { denyDetail } from './deny-detail';

export type GateAction = {
  action: 'swap' | 'send' | 'wrap' | 'unwrap' | 'withdraw';
  /** Symbols (and addresses) of every token the action moves. */
  tokens: readonly string[];
  to: string | null;
  valueUsd: bigint;
};

export type GateInput = {
  policy: PolicyDocument;
  action: GateAction;
  spentTodayUsd: bigint;
  usdOf: (amount: string) => bigint;
};

export type GateDecision = { decision: 'execute' | 'hold' };

const block = (rule: string, detail: string) => new PresenceError('policy_block', detail, { extra: { rule } });
/**
 * A cap as the account wrote it, with its USD value when written in a token. The detail reads
 * as a sentence in any surface (a chat, a bot's card, the CLI) and names the policy field last,
 * in parentheses, for whoever edits the policy document; `rule` carries it too.
 */
const capOf = (written: string, usd: bigint) => (written.endsWith(' USD') ? written : `${written}, ${formatUsd(usd)}`);

export function evaluatePolicy({ policy, action, spentTodayUsd, usdOf }: GateInput): GateDecision {
  const tokens = action.tokens.map((t) => t.toLowerCase());
  policy.deny.forEach((rule, i) => {
    const actionHits = rule.action === undefined || rule.action === '*' || rule.action === action.action;
    const tokenHits = rule.token === undefined || tokens.includes(rule.token.toLowerCase());
    const toHits = rule.to === undefined || (action.to !== null && rule.to.toLowerCase() === action.to.toLowerCase());
    if (actionHits && tokenHits && toHits) throw block(`deny[${i}]`, denyDetail(policy, rule));
  });

  if (action.action === 'withdraw') {
    const allowed = policy.withdraw_allowlist.some((a) => action.to !== null && a.toLowerCase() === action.to.toLowerCase());
    if (!allowed) throw block('withdraw_allowlist', `${action.to} is not on your withdraw allowlist (withdraw_allowlist)`);
    // Withdrawals are the key holder moving funds to an address they allowlisted: no caps.
    return { decision: 'execute' };
  }

  const perTx = usdOf(policy.per_tx_cap);
  if (action.valueUsd > perTx) {
    throw block(
      'per_tx_cap',
      `${formatUsd(action.valueUsd)} is over the most one action may spend, ${capOf(policy.per_tx_cap, perTx)} (per_tx_cap)`,
    );
  }
  const daily = usdOf(policy.daily_cap);
  if (spentTodayUsd + action.valueUsd > daily) {
    throw block(
      'daily_cap',
      `${formatUsd(action.valueUsd)} on top of the ${formatUsd(spentTodayUsd)} spent today is over your daily cap, ${capOf(policy.daily_cap, daily)} (daily_cap)`,
    );
  }
  // Above passkey_over an action is held too, whatever confirm_over says: it is approved only with a passkey.
  const held =
    action.valueUsd > usdOf(policy.confirm_over) || (policy.passkey_over !== undefined && action.valueUsd > usdOf(policy.passkey_over));
  return { decision: held ? 'hold' : 'execute' };
}
