// The account's latest actions as the presence tells them ("did my swap go through?", "what
// did I do today?"): what each was, how it ended, its transaction. A few of the newest,
// asked of the store as such (IntentFilter.last), so the answer costs the same whatever the
// account's history.
import type { ConfirmationView } from '@presence/protocol';
import { formatUsd } from '../chain/amounts';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import type { Caller } from '../keys/caller';
import type { IntentRecord } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import { statusAt } from './confirmations';

/** How many of the newest actions a question about them reads. */
export const RECENT_ACTIONS = 10;

export type ActionView = {
  intent_id: string;
  action: IntentRecord['action'];
  summary: string;
  amount: string;
  value_usd: string;
  /** Who asked: the API, a chat message, a standing intent, a withdrawal. */
  source: IntentRecord['source'];
  status: ConfirmationView['status'];
  created_at: string;
  tx: string | null;
  block: number | null;
  /** Why it failed, when it did. */
  reason: string | null;
};

export function createActionHistory({ storeFor, clock }: { storeFor: StoreFor; clock: Clock }) {
  return {
    /** The newest `last` actions of the caller's key kind, newest first. */
    async recent(caller: Caller, last = RECENT_ACTIONS): Promise<ActionView[]> {
      const now = clock.now();
      const records = await storeFor(caller.kind).listIntents(caller.accountId, { last });
      return records.reverse().map((r) => ({
        intent_id: r.id,
        action: r.action,
        summary: r.summary,
        amount: r.amount,
        value_usd: formatUsd(BigInt(r.value_usd)),
        source: r.source,
        status: statusAt(r, now),
        created_at: iso(r.created_at),
        tx: r.txs.at(-1)?.hash ?? null,
        block: r.block,
        reason: r.state === 'failed' ? r.error : null,
      }));
    },
  };
}

export type ActionHistory = ReturnType<typeof createActionHistory>;
