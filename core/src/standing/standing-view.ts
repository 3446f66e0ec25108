// A standing intent as the API shows it: times as RFC 3339, and the price line as an amount
// with its unit ("2500.00 USD"), not the 18-decimal integer it is kept as.
import type { StandingView } from '@presence/protocol';
import { formatUsd } from '../chain/amounts';
import { iso } from '../clock/clock';
import type { StandingRecord } from '../store/documents';

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export function toStandingView(r: StandingRecord): StandingView {
  const t = r.trigger;
  return {
    id: r.id,
    text: r.text,
    trigger: t.kind === 'price' ? { kind: t.kind, token: t.token, op: t.op, threshold: formatUsd(BigInt(t.threshold_usd)) } : t,
    action: r.action,
    state: r.state,
    armed: r.armed,
    next_at: isoOrNull(r.next_at),
    fired_count: r.fired_count,
    last_fired_at: isoOrNull(r.last_fired_at),
    created_at: iso(r.created_at),
  };
}
