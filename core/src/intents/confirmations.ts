// Held actions and their answers. Approve re-plans at the current block and re-runs the
// gate (a policy tightened since the hold blocks it); deny drops it; silence past
// expires_at drops it too — checked on every answer, not only by the sweeper, so a hold
// whose time ran out while the server was down can never execute. Each resolution is a
// `confirm` event so surfaces can retire their buttons.
import { type ConfirmationView, type ConfirmResult, KeyKind } from '@presence/protocol';
import { formatUsd } from '../chain/amounts';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { notFound, PresenceError } from '../errors/presence-error';
import type { EventsLog } from '../events/events-log';
import type { Caller } from '../keys/caller';
import type { IntentRecord } from '../store/documents';
import type { IntentPipeline } from './intent-pipeline';

export type Resolution = {
  record: IntentRecord;
  /** Whose answer (or silence) it was: the account, through a key of this kind. */
  caller: Caller;
  status: 'executed' | 'denied' | 'expired' | 'failed';
  tx?: string;
  block?: number;
};

export type Confirmations = ReturnType<typeof createConfirmations>;

/**
 * Where an intent stands as clients see it (a confirmation's status, an action's in the
 * history): a hold past its time reads as expired even before the sweeper gets to it.
 */
export function statusAt(r: IntentRecord, now: number): ConfirmationView['status'] {
  if (r.state === 'held') return now < (r.expires_at as number) ? 'held' : 'expired';
  return r.state === 'done' ? 'executed' : r.state === 'signed' ? 'executing' : r.state;
}

/** The intent states a confirmation status is read from: a hold past its time is `expired` before the sweeper moves it. */
const STATES_OF: Record<ConfirmationView['status'], IntentRecord['state'][]> = {
  held: ['held'],
  executing: ['executing', 'signed'],
  executed: ['done'],
  denied: ['denied'],
  expired: ['expired', 'held'],
  failed: ['failed'],
};

export function createConfirmations({ pipeline, events, clock }: { pipeline: IntentPipeline; events: EventsLog; clock: Clock }) {
  const listeners = new Set<(r: Resolution) => Promise<void> | void>();

  async function resolved(r: Resolution) {
    await events.emit(r.caller, 'confirm', {
      confirm_id: r.record.confirm_id as string,
      intent_id: r.record.id,
      status: r.status,
      tx: r.tx,
      block: r.block,
      reason: r.record.error || undefined,
    });
    for (const l of listeners) await l(r);
  }

  async function expire(r: IntentRecord, caller: Caller) {
    const next = await pipeline
      .storeFor(caller.kind)
      .transitionIntent(r.account_id, r.id, ['held'], 'expired', { updated_at: clock.now() });
    if (next) await resolved({ record: next, caller, status: 'expired' });
  }

  const expiredError = (id: string) =>
    new PresenceError('confirm_expired', `confirmation ${id} expired; the action was dropped and not executed`);
  const resolvedError = (id: string, state: string) =>
    new PresenceError('confirm_resolved', `confirmation ${id} was already resolved (${state}); it cannot be answered differently now`);

  const executedResult = (caller: Caller, confirmId: string, x: IntentRecord): ConfirmResult => ({
    confirm_id: confirmId,
    status: 'executed',
    tx: x.txs.at(-1)?.hash as string,
    block: x.block as number,
    ...pipeline.answerOf(caller),
  });

  /**
   * A held intent answered: denied, or re-planned at the current block under the policy and
   * executed. Null when another answer moved it first (the caller reads it again).
   */
  async function answerHeld(
    caller: Caller,
    confirmId: string,
    r: IntentRecord,
    { approve, passkeyVerified }: { approve: boolean; passkeyVerified: boolean },
  ): Promise<ConfirmResult | null> {
    const istore = pipeline.storeFor(caller.kind);
    if (clock.now() >= (r.expires_at as number)) {
      await expire(r, caller);
      throw expiredError(confirmId);
    }
    if (!approve) {
      const denied = await istore.transitionIntent(caller.accountId, r.id, ['held'], 'denied', { updated_at: clock.now() });
      if (!denied) return null;
      await resolved({ record: denied, caller, status: 'denied' });
      return { confirm_id: confirmId, status: 'denied' };
    }
    if (!passkeyVerified) {
      const refusal = await pipeline.passkeyRefusal(r);
      if (refusal) throw refusal;
    }
    // Throws policy_block when the policy now forbids it; the hold stays until it expires.
    // The claim happens inside the gate lock, so the spend it reserves is counted by the
    // next gate (see replan); expiry is asked again there, as the lock may have waited.
    const claimed = await pipeline.replan(
      r,
      caller,
      (plan) =>
        clock.now() >= (r.expires_at as number)
          ? Promise.resolve(null)
          : istore.transitionIntent(caller.accountId, r.id, ['held'], 'executing', {
              summary: plan.summary,
              amount: plan.amount,
              value_usd: plan.valueUsd.toString(),
              quote_block: Number(plan.block),
              steps: pipeline.steps(plan),
              updated_at: clock.now(),
            }),
      { passkeyVerified },
    );
    if (!claimed) return null;
    // A chain outage before signing puts the hold back, to be approved again in time.
    // The outcome is announced by the pipeline's listener below.
    const done = await pipeline.execute(caller, claimed);
    return executedResult(caller, confirmId, { ...done.record, block: done.block });
  }

  /**
   * `passkeyVerified`: the approval was made with one of the account's passkeys (the approve
   * page); without it, a hold over passkey_over is refused with passkey_required.
   */
  async function answer(
    caller: Caller,
    confirmId: string,
    approve: boolean,
    { passkeyVerified = false }: { passkeyVerified?: boolean } = {},
  ): Promise<ConfirmResult> {
    const istore = pipeline.storeFor(caller.kind);
    for (;;) {
      const r = await istore.findIntentByConfirmId(caller.accountId, confirmId);
      if (!r) throw notFound(`no confirmation ${confirmId}`);
      switch (r.state) {
        case 'held': {
          const answered = await answerHeld(caller, confirmId, r, { approve, passkeyVerified });
          if (!answered) continue; // answered concurrently: read again
          return answered;
        }
        case 'executing':
        case 'signed':
          if (!approve) throw resolvedError(confirmId, 'approved');
          // Another answer is executing it (or an outage interrupted it): wait for that drive
          // or resume it; either way the loop then reads the outcome.
          try {
            await pipeline.resume(caller, r);
          } catch (e) {
            // Still unfinished after our own attempt: the outage is the answer. Otherwise it
            // moved on (done, failed, or back to held) and the loop reads where it went.
            const after = await istore.getIntent(caller.accountId, r.id);
            if (after?.state === 'executing' || after?.state === 'signed') throw e;
          }
          continue;
        case 'done':
          if (approve) return executedResult(caller, confirmId, r);
          throw resolvedError(confirmId, 'executed');
        case 'denied':
          if (!approve) return { confirm_id: confirmId, status: 'denied' };
          throw resolvedError(confirmId, 'denied');
        case 'expired':
          throw expiredError(confirmId);
        case 'failed':
          throw resolvedError(confirmId, `failed: ${r.error ?? 'unknown'}`);
      }
    }
  }

  // Whichever drive finishes a held intent (this answer, a concurrent one, a retry after an
  // outage, recovery at start) makes it known here, once.
  pipeline.onOutcome((o) => {
    if (!o.record.confirm_id) return;
    return o.status === 'done'
      ? resolved({ record: o.record, caller: o.caller, status: 'executed', tx: o.hash, block: o.block })
      : resolved({ record: o.record, caller: o.caller, status: 'failed' });
  });

  /** One held-for-approval record as clients see it. */
  async function viewOf(r: IntentRecord, now: number): Promise<ConfirmationView> {
    const status = statusAt(r, now);
    return {
      confirm_id: r.confirm_id as string,
      intent_id: r.id,
      status,
      summary: r.summary,
      amount: r.amount,
      created_at: iso(r.created_at),
      expires_at: iso(r.expires_at as number),
      tx: r.txs.at(-1)?.hash ?? null,
      block: r.block,
      value_usd: formatUsd(BigInt(r.value_usd)),
      ...(status === 'held' ? await pipeline.passkeyOf(r) : {}),
    };
  }

  return {
    answer,
    /**
     * The account's newest confirmations (`limit` of them; all when absent), oldest first;
     * with `status`, only those, the states behind it asked of the store rather than filtered
     * here, so listing what waits costs what waits, not the account's history.
     */
    async list(
      caller: Caller,
      { status, limit }: { status?: ConfirmationView['status']; limit?: number } = {},
    ): Promise<ConfirmationView[]> {
      const now = clock.now();
      const records = await pipeline
        .storeFor(caller.kind)
        .listIntents(caller.accountId, { confirmable: true, states: status && STATES_OF[status], last: limit });
      const views = await Promise.all(records.map((r) => viewOf(r, now)));
      return views.filter((c) => !status || c.status === status);
    },
    /** One confirmation, held or resolved; 404 when the account has none by that id. */
    async get(caller: Caller, confirmId: string): Promise<ConfirmationView> {
      const r = await pipeline.storeFor(caller.kind).findIntentByConfirmId(caller.accountId, confirmId);
      if (!r) throw notFound(`no confirmation ${confirmId}`);
      return viewOf(r, clock.now());
    },
    /** Drops every hold past its time (run on the beat and at start): one indexed query per store, whatever the number of accounts. */
    async sweep() {
      const now = clock.now();
      let n = 0;
      for (const mode of KeyKind.options) {
        for (const r of await pipeline.storeFor(mode).dueHolds(now)) {
          await expire(r, { accountId: r.account_id, kind: mode });
          n++;
        }
      }
      return n;
    },
    onResolved(listener: (r: Resolution) => Promise<void> | void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
