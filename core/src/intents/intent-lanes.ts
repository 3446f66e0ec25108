// How an intent in `executing` is carried out for each key kind (DESIGN.md: test keys). A live
// key's intent is driven by the executor — signed, stored, sent — which announces its outcome;
// a test key's is rehearsed: signed at the nonce it would get, never sent, its record done
// with that hash and its outcome published here. The pipeline picks the lane by the caller's kind.
import type { KeyKind } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { Caller } from '../keys/caller';
import type { IntentRecord } from '../store/documents';
import type { Executed, IntentExecutor, IntentStore, Outcome } from './intent-executor';

/**
 * Where the time of one live intent that executed at once went, as performance.now()
 * readings: submitted → quoted (parsed, resolved, quoted and valued at a block) → gated
 * (policy checked, record stored) → sent (every transaction signed, stored and broadcast) →
 * settled (receipts in, record done, tx event emitted). Only for benchmarks and diagnostics
 * (see `onTiming`); nothing is measured while no one listens.
 */
export type IntentTiming = { intent_id: string; start: number; quoted: number; gated: number; sent: number; settled: number };
export type Marks = Partial<IntentTiming>;

/** A final outcome of an intent of either key kind (see `onOutcome`). */
export type KindOutcome = Outcome & { caller: Caller };

/** How an intent in `executing` is carried out for one key kind. */
export type Lane = {
  /** Carries a record out; resolves once it is done. */
  run(store: IntentStore, record: IntentRecord, marks?: Marks): Promise<Executed>;
  /** Follows a record already under way (a retry, a second approval) to its end. */
  resume(store: IntentStore, record: IntentRecord): Promise<Executed>;
  /** What every answer about such an intent carries. */
  answer: { simulated?: true };
};

/**
 * The one place an intent's key kind changes how it runs (its store is the other: the
 * overlay, from `storeFor`). A test key's intent is rehearsed — signed but never sent, so
 * no nonce is used and nothing reaches the chain — because a test key must not act; its
 * answers say `simulated: true` so nobody mistakes the hash for a sent transaction; and
 * as no drive ends it, its outcome is published by the rehearsal instead of the executor.
 */
export function createKindLanes({
  executor,
  clock,
  publish,
  timingListeners,
}: {
  executor: IntentExecutor;
  clock: Clock;
  /** Announces a final outcome (a rehearsal's; the executor announces a drive's). */
  publish: (o: KindOutcome) => Promise<void>;
  /** Told the phase timings of a live intent driven with marks. */
  timingListeners: Iterable<(t: IntentTiming) => void>;
}): Record<KeyKind, Lane> {
  /** Simulations under way, by intent id: what a retry or a second approval waits for. */
  const rehearsals = new Map<string, Promise<Executed>>();

  /** A live intent: signed, stored and sent by the executor, which announces its outcome. */
  async function drive(store: IntentStore, record: IntentRecord, marks?: Marks): Promise<Executed> {
    // The record as its caller has just stored it: the gate's new one, or an approval's claim
    // (see the executor's `fresh`).
    const onSent = marks
      ? () => {
          marks.sent = performance.now();
        }
      : undefined;
    const done = await executor.drive(store, record, { onSent, fresh: true });
    if (marks) {
      marks.settled = performance.now();
      const t = { ...marks, intent_id: done.record.id } as IntentTiming;
      for (const l of timingListeners) l(t);
    }
    return done;
  }

  /** A test key's intent: signed at the nonce it would get, never sent; the record is done with that hash. */
  function rehearse(store: IntentStore, record: IntentRecord): Promise<Executed> {
    const running = (async (): Promise<Executed> => {
      const { hash } = await executor.simulate(record.account_id, record.steps).catch(async (e: unknown) => {
        // Same fate as a live record that could not be signed.
        await executor.release(store, record, e instanceof Error ? e.message : String(e));
        throw e;
      });
      const done = await store.transitionIntent(record.account_id, record.id, ['executing'], 'done', {
        txs: [{ hash, raw: '', nonce: -1, label: 'simulated' }],
        block: record.quote_block,
        executed_at: clock.now(),
        updated_at: clock.now(),
      });
      const executed = { record: done ?? record, hash, block: record.quote_block };
      if (done) await publish({ status: 'done', caller: { accountId: record.account_id, kind: 'test' }, ...executed });
      return executed;
    })();
    rehearsals.set(record.id, running);
    // Only the bookkeeping: the caller gets `running` itself, failure included.
    void running.catch(() => undefined).finally(() => rehearsals.delete(record.id));
    return running;
  }

  return {
    live: { run: drive, resume: (store, r) => executor.drive(store, r), answer: {} },
    test: {
      run: (store, r) => rehearse(store, r),
      // A rehearsal is not durable: one under way is waited for, there is nothing else to resume.
      resume: (_store, r) =>
        rehearsals.get(r.id) ??
        Promise.reject(new PresenceError('idempotency_in_progress', `intent ${r.id} is still running`, { retryAfter: 1 })),
      answer: { simulated: true },
    },
  };
}
