// What the schema cannot know: whether the units and tokens a policy names exist on this
// chain. A cap in an unknown unit could never be priced (every action would then block, and
// the wallet view could not show the cap), and a deny rule on a misspelt symbol would
// silently never match; both are refused when the document is written, naming the field.

import type { PolicyDocument } from '@presence/protocol';
import type { TokenList } from '../chain/token-list';
import { invalidRequest } from '../errors/presence-error';

const CAPS = ['per_tx_cap', 'confirm_over', 'daily_cap', 'passkey_over'] as const;

/**
 * An amount field (`"<decimal> <UNIT>"`) whose unit this chain does not list is a malformed
 * request, 400 invalid_request naming the field: in the policy's caps (where USD is a unit too)
 * and in a withdrawal's amount alike. (422 intent_unresolved is for a sentence the planner
 * could not carry out, not for a structured field.)
 */
export function checkAmountUnit(field: string, amount: string, list: TokenList, opts: { usd: boolean }): void {
  const units = [...(opts.usd ? ['USD'] : []), 'ETH', ...list.tokens.map((t) => t.symbol)];
  const unit = (amount.split(' ')[1] ?? '').toUpperCase();
  if (!units.some((u) => u.toUpperCase() === unit))
    throw invalidRequest(`\`${field}\`: unknown unit "${unit}"; use one of ${units.join(', ')}`);
}

export function checkPolicyUnits(doc: PolicyDocument, list: TokenList): void {
  const symbols = new Set(['USD', 'ETH', ...list.tokens.map((t) => t.symbol.toUpperCase())]);
  const known = `USD, ETH, ${list.tokens.map((t) => t.symbol).join(', ')}`;
  for (const field of CAPS) {
    const value = doc[field];
    if (value !== undefined) checkAmountUnit(field, value, list, { usd: true });
  }
  doc.deny.forEach((rule, i) => {
    if (rule.token === undefined) return;
    const t = rule.token.trim();
    // An address names a token even when it is not listed (a no-op, but not a typo).
    if (/^0x[0-9a-fA-F]{40}$/.test(t)) return;
    if (!symbols.has(t.toUpperCase()) || t.toUpperCase() === 'USD') {
      throw invalidRequest(`\`deny[${i}].token\`: unknown token "${t}"; use a symbol (${known.slice(5)}) or a 0x address`);
    }
  });
}
