// What an intent answers its caller (IntentResult): held, with the hold's passkey mark; done,
// with its last transaction; and, for a record that already exists (a retry with the same
// idempotency key, or one the gate found), what that record answers now — never a second action.
import type { IntentResult, KeyKind } from '@presence/protocol';
import { formatUsd } from '../chain/amounts';
import { iso } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { Caller } from '../keys/caller';
import type { PasskeyHolds, PasskeyMark } from '../passkeys/passkey-holds';
import type { IntentRecord } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { Lane } from './intent-lanes';

/** The answers of the intent pipeline; a lane adds what every answer of its key kind carries. */
export function intentAnswers({ lanes, holds, storeFor }: { lanes: Record<KeyKind, Lane>; holds?: PasskeyHolds; storeFor: StoreFor }) {
  function heldResult(r: IntentRecord, caller: Caller, mark: PasskeyMark): IntentResult {
    return {
      status: 'needs_confirm',
      intent_id: r.id,
      confirm_id: r.confirm_id as string,
      summary: r.summary,
      amount: r.amount,
      expires_at: iso(r.expires_at as number),
      value_usd: formatUsd(BigInt(r.value_usd)),
      ...lanes[caller.kind].answer,
      ...mark,
    };
  }
  const doneResult = (r: IntentRecord, tx: string, block: number, caller: Caller): IntentResult => ({
    status: 'done',
    intent_id: r.id,
    tx,
    block,
    summary: r.summary,
    amount: r.amount,
    value_usd: formatUsd(BigInt(r.value_usd)),
    ...lanes[caller.kind].answer,
  });

  /** What an existing record answers to a retry: never a second action. One still running
   * is waited for (its drive holds the intent), one left signed by an outage is resumed. */
  async function resultOf(r: IntentRecord, caller: Caller): Promise<IntentResult> {
    switch (r.state) {
      case 'held':
        return heldResult(r, caller, holds ? await holds.of(r) : {});
      case 'executing':
      case 'signed': {
        const { hash, block } = await lanes[caller.kind].resume(storeFor(caller.kind), r);
        return doneResult(r, hash, block, caller);
      }
      case 'done':
        return doneResult(r, r.txs.at(-1)?.hash as string, r.block as number, caller);
      default:
        throw new PresenceError('conflict', `intent ${r.id} ended ${r.state}${r.error ? `: ${r.error}` : ''}`, {
          extra: { intent_id: r.id },
        });
    }
  }

  return { heldResult, doneResult, resultOf };
}
