// Durable execution of a planned intent. Each transaction is signed and its hash and raw
// bytes stored (state `signed`) BEFORE it is broadcast, so after a crash or a retry the
// record says exactly what may be on chain: recovery re-broadcasts the same bytes (same
// nonce, same hash — it can land at most once) and waits for the receipt instead of
// signing anything new.
//
// Everyone who wants an intent finished — the request that made it, a retry of that
// request, a second approval, recovery at start, the upkeep — calls `drive`. Drives of one
// intent run one at a time and each starts from the stored record, so two of them can never
// sign the same step twice; whoever makes the final transition (done or failed) publishes
// the outcome, so its events are announced exactly once, whichever path got there.
// With many servers, drives of one intent may run on two of them at once (an approval on
// each): every step is signed under the wallet's cluster-wide nonce lock, after checking that
// the stored record still lacks that step, so a step is signed once; the other drive starts
// again from the stored record, waits for the same receipts, and whoever loses the final
// compare-and-set reads the outcome instead of failing.
// Steps of many intents of one wallet are signed a batch at a time (nonce-allocator.ts): their
// `signed` records commit together, still each before its own broadcast.
import type { Hash } from 'viem';
import type { ChainPort } from '../chain/chain-port';
import type { Clock } from '../clock/clock';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { PresenceError } from '../errors/presence-error';
import type { IntentRecord, PlannedTx } from '../store/documents';
import { type ApprovalLedger, createApprovalLedger } from '../wallet/signers/approvals';
import type { NonceAllocator } from '../wallet/signers/nonce-allocator';
import type { Wallets } from '../wallet/signers/wallets';
import { type Executed, executedOf, type IntentStore, type Outcome, settleReceipts } from './intent-settle';
import { type ClaimParts, claimStep, resendStored, toRequest } from './step-claim';

export type { Executed, IntentStore, Outcome } from './intent-settle';

type DriveOptions = { onSent?: () => void; fresh?: boolean };

export type IntentExecutor = ReturnType<typeof createIntentExecutor>;

/**
 * A record stopped before its first signature (a chain outage, a crash) sent nothing. An
 * approved hold goes back to `held`, to be approved again before it expires; a new intent
 * fails and releases its Idempotency-Key, so a retry plans afresh. Anything signed since
 * is left alone: that record is the drive's to finish.
 */
async function releaseUnsigned(clock: Clock, store: IntentStore, r: IntentRecord, reason: string) {
  const stored = await store.getIntent(r.account_id, r.id);
  if (stored?.state !== 'executing' || stored.txs.length > 0) return;
  if (stored.confirm_id) {
    await store.transitionIntent(r.account_id, r.id, ['executing'], 'held', { updated_at: clock.now() });
    return;
  }
  await store.transitionIntent(r.account_id, r.id, ['executing'], 'failed', {
    error: reason,
    idempotency_key: null,
    updated_at: clock.now(),
  });
}

/**
 * Test keys: sign the plan's final transaction (the one that does the thing) at the nonce
 * it would get, send nothing, consume nothing. A swap behind an approval already carries
 * a fixed gas limit, so signing it needs no simulation of the approval.
 */
async function signFinalStep(
  { chain, wallets }: { chain: ChainPort; wallets: Wallets },
  accountId: string,
  steps: PlannedTx[],
): Promise<{ hash: Hash }> {
  const { address, key } = await wallets.signer(accountId);
  const [nonce, prepared] = await Promise.all([
    chain.nonceOf(address, 'pending'),
    chain.prepareTransaction(address, toRequest(steps.at(-1) as PlannedTx)),
  ]);
  const signed = await chain.signPrepared(key, prepared, nonce + steps.length - 1);
  return { hash: signed.hash };
}

export function createIntentExecutor({
  chain,
  wallets,
  nonces,
  clock,
  approvals = createApprovalLedger(chain),
}: {
  chain: ChainPort;
  wallets: Wallets;
  nonces: NonceAllocator;
  clock: Clock;
  /** Approvals signed and not yet mined (default: this executor's own). */
  approvals?: ApprovalLedger;
}) {
  const lock = createKeyedLock();
  const driving = new Set<string>();
  const listeners = new Set<(o: Outcome) => Promise<void> | void>();

  const endedError = (r: IntentRecord) =>
    new PresenceError('conflict', `intent ${r.id} ended ${r.state}${r.error ? `: ${r.error}` : ''}`, { extra: { intent_id: r.id } });

  /**
   * Brings a live intent in `executing` or `signed` to `done`, or to `failed` when the chain
   * refuses it. A chain outage leaves a signed record as it is (the next drive resumes it).
   * `onSent` marks the moment the last transaction is broadcast (timing only). `fresh` says
   * `intent` is the record exactly as its caller has just stored it (a new intent from the
   * gate): it is not read back first (see driveLocked).
   */
  async function drive(store: IntentStore, intent: IntentRecord, opts: DriveOptions = {}): Promise<Executed> {
    let outcome: Outcome | null = null;
    const settle = (o: Outcome) => {
      outcome = o;
    };
    try {
      return await lock(intent.id, async () => {
        driving.add(intent.id);
        try {
          return await driveLocked(store, intent, opts, settle);
        } finally {
          driving.delete(intent.id);
        }
      });
    } finally {
      // Outside the lock: listeners (resume messages) may wait on other locks of their own.
      if (outcome) for (const l of listeners) await l(outcome);
    }
  }

  /**
   * One pass from the stored record: what was stored is sent again if the node lacks it, each
   * remaining step is claimed (step-claim.ts), then the receipts settle it (intent-settle.ts).
   * A pass that finds another drive got ahead of it starts again from a fresh read.
   */
  async function driveLocked(
    store: IntentStore,
    intent: IntentRecord,
    opts: DriveOptions,
    settle: (o: Outcome) => void,
  ): Promise<Executed> {
    const d: ClaimParts = { chain, clock, store, settle, nonces, approvals, release };
    for (let fresh = opts.fresh; ; fresh = false) {
      // The wallet is read alongside the record (one round trip, not two, on PostgreSQL).
      const signer = wallets.signer(intent.account_id);
      signer.catch(() => undefined);
      // A record just stored by the caller is taken as it is, a round trip less on PostgreSQL:
      // even if another drive got to it first (a retry's), nothing is signed from a stale copy,
      // as each step is recorded only once the claim has read the record again under the
      // wallet's lock; a drive that finds it moved on starts again from a fresh read.
      let r = fresh ? intent : await store.getIntent(intent.account_id, intent.id);
      if (!r) throw new PresenceError('conflict', `intent ${intent.id} is gone`);
      if (r.state === 'done') return executedOf(r);
      if (r.state !== 'executing' && r.state !== 'signed') throw endedError(r);
      await resendStored(d, r);
      const wallet = await signer;
      while (r && r.txs.length < r.steps.length) r = await claimStep(d, r, wallet);
      // Another drive got ahead: start again from the record.
      if (!r) continue;
      opts.onSent?.();
      return settleReceipts(d, r);
    }
  }

  const release = (store: IntentStore, r: IntentRecord, reason: string) => releaseUnsigned(clock, store, r, reason);
  const simulate = (accountId: string, steps: PlannedTx[]) => signFinalStep({ chain, wallets }, accountId, steps);

  return {
    drive,
    release,
    simulate,
    /** Whether a drive of this intent is under way in this process. */
    isDriving: (intentId: string) => driving.has(intentId),
    /** Called once per final transition, after the drive that made it let go of the intent. */
    onOutcome(listener: (o: Outcome) => Promise<void> | void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
