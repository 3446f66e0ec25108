// The spend label shown on presence/me: a one-word digest of the policy.
import type { PolicyDocument, SpendLabel } from '@presence/protocol';

const isZero = (amount: string) => /^0+(\.0+)? /.test(amount);

export function spendLabel(p: PolicyDocument): SpendLabel {
  if (isZero(p.per_tx_cap) || isZero(p.daily_cap) || p.deny.some((r) => r.action === '*' && !r.token && !r.to)) return 'locked';
  if (isZero(p.confirm_over)) return 'confirm_all';
  return 'guarded';
}
