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
import type { Address, Hash, Hex } from 'viem';
import type { ChainPort, SignedTx } from '../chain/chain-port';
import { ChainRevertedError, ChainUnavailableError, TransactionRejectedError } from '../chain/errors';
import type { Clock } from '../clock/clock';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { PresenceError } from '../errors/presence-error';
import type { IntentRecord, PlannedTx } from '../store/documents';
import type { StoreOps, StorePort } from '../store/store-port';
import { type ApprovalLedger, createApprovalLedger } from '../wallet/signers/approvals';
import { type NonceAllocator, SignAgain } from '../wallet/signers/nonce-allocator';
import type { Wallets } from '../wallet/signers/wallets';

export type IntentStore = Pick<
  StorePort,
  | 'atomically'
  | 'createIntent'
  | 'getIntent'
  | 'transitionIntent'
  | 'listIntents'
  | 'spentSince'
  | 'findIntentByConfirmId'
  | 'findIntentByIdempotencyKey'
>;

export type Executed = { record: IntentRecord; hash: Hash; block: number };

/** A final transition made by a drive: published once, after the intent's lock is released. */
export type Outcome = { status: 'done'; record: IntentRecord; hash: Hash; block: number } | { status: 'failed'; record: IntentRecord };

const RECEIPT_TIMEOUT_MS = 60_000;

type DriveOptions = { onSent?: () => void; fresh?: boolean };

/** Another drive (on another server) signed this step or ended the intent first. */
class Superseded extends Error {}

/** An approval step found unneeded at signing time (approvals.ts): the record without it. */
class StepDropped extends Error {
  constructor(readonly record: IntentRecord) {
    super('step dropped');
  }
}

export type IntentExecutor = ReturnType<typeof createIntentExecutor>;

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

  const toRequest = (s: PlannedTx) => ({
    to: s.to as Address,
    data: s.data as Hex,
    value: BigInt(s.value),
    ...(s.gas ? { gas: BigInt(s.gas) } : {}),
    ...(s.gas_headroom ? { gasHeadroom: BigInt(s.gas_headroom) } : {}),
  });

  const executedOf = (r: IntentRecord): Executed => ({ record: r, hash: r.txs.at(-1)?.hash as Hash, block: r.block as number });

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

  async function driveLocked(
    store: IntentStore,
    intent: IntentRecord,
    opts: DriveOptions,
    settle: (o: Outcome) => void,
  ): Promise<Executed> {
    // The wallet is read alongside the record (one round trip, not two, on PostgreSQL).
    const signer = wallets.signer(intent.account_id);
    signer.catch(() => undefined);
    // A record just stored by the caller is taken as it is, a round trip less on PostgreSQL:
    // even if another drive got to it first (a retry's), nothing is signed from a stale copy,
    // as each step is recorded only once `unchanged` has read the record again under the
    // wallet's lock; a drive that finds it moved on starts again from a fresh read.
    let r = opts.fresh ? intent : await store.getIntent(intent.account_id, intent.id);
    if (!r) throw new PresenceError('conflict', `intent ${intent.id} is gone`);
    if (r.state === 'done') return executedOf(r);
    if (r.state !== 'executing' && r.state !== 'signed') throw endedError(r);

    const fail = async (reason: string) => {
      const failed = await store.transitionIntent(r!.account_id, r!.id, ['executing', 'signed'], 'failed', {
        error: reason,
        updated_at: clock.now(),
      });
      if (failed) settle({ status: 'failed', record: failed });
      return new PresenceError('conflict', `the action failed on chain: ${reason}`, { extra: { intent_id: intent.id } });
    };

    // What was stored must be on the node before anything new is signed: the next step's
    // nonce comes after it. A stored transaction the node refuses now (its nonce went to
    // another) can never land, and neither can the steps behind it.
    for (const tx of r.txs) {
      if (await chain.getTransaction(tx.hash as Hash)) continue;
      try {
        await chain.sendRaw(tx.raw as Hex);
      } catch (e) {
        if (e instanceof TransactionRejectedError)
          throw await fail(`${tx.label} transaction ${tx.hash} can no longer be sent: ${e.reason}`);
        throw e;
      }
    }

    const { address, key } = await signer;
    for (let i = r.txs.length; i < r.steps.length; i++) {
      const step = r.steps[i] as PlannedTx;
      const current: IntentRecord = r;
      // Gas and fees are asked for before the wallet's nonce lock and alongside its nonce read,
      // so the three travel as one JSON-RPC batch (the estimate sees the same mined state either
      // way). Its failure is taken up inside the lock.
      const prepared = chain.prepareTransaction(address, toRequest(step));
      prepared.catch(() => undefined);
      const approval = step.label === 'approve';
      /** The nonce this step's approval was signed at, until it is known sent or not. */
      let approvedAt: number | undefined;
      try {
        /** Whether the stored record still lacks this step (no other drive signed it or ended the intent). */
        const unchanged = async (on: Pick<StoreOps, 'getIntent'> = store) => {
          const stored = await on.getIntent(current.account_id, current.id);
          return !!stored && (stored.state === 'executing' || stored.state === 'signed') && stored.txs.length === current.txs.length;
        };
        const tx = (signed: SignedTx, nonce: number) => ({ hash: signed.hash, raw: signed.raw, nonce, label: step.label });
        // Signed, stored and sent in the wallet's next batch (nonce-allocator.ts): the records of
        // every intent in it commit together, before any of them is broadcast.
        const next = await nonces.claim(address, {
          atomically: store.atomically,
          ready: (unit) => unchanged(unit),
          async sign(nonce) {
            // Once per token and spender: an approval another intent already sent is not sent again.
            // Dropping the step writes the record, so it is first checked as `ready` checks.
            if (approval && !(await unchanged())) throw new Superseded();
            if (approval && (await approvals.covered(address, step, current.steps[i + 1]))) {
              const steps = current.steps.filter((_, j) => j !== i);
              const dropped = await store.transitionIntent(current.account_id, current.id, ['executing', 'signed'], current.state, {
                steps,
                updated_at: clock.now(),
              });
              if (!dropped) throw new PresenceError('conflict', `intent ${current.id} changed state while signing`);
              throw new StepDropped(dropped);
            }
            const signed = await chain.signPrepared(key, await prepared, nonce);
            if (approval) {
              approvals.signed(address, step, nonce);
              approvedAt = nonce;
            }
            return signed;
          },
          record: (signed, nonce, unit) =>
            unit.transitionIntent(current.account_id, current.id, ['executing', 'signed'], 'signed', {
              txs: [...current.txs, tx(signed, nonce)],
              updated_at: clock.now(),
            }),
          // Never sent: as it was before this step was signed.
          unrecord: (_, unit) =>
            unit.transitionIntent(current.account_id, current.id, ['signed'], current.state, {
              txs: current.txs,
              updated_at: clock.now(),
            }),
          send: (signed) => chain.sendRaw(signed.raw),
        });
        // Moved on while waiting (another drive signed this step, or ended the intent): start again from the record.
        if (!next) throw new Superseded();
        r = next;
      } catch (e) {
        if (e instanceof StepDropped) {
          r = e.record;
          i--;
          continue;
        }
        // Signed but never sent: the approval it stood for is not pending (or it would drop itself when signed again).
        if (e instanceof SignAgain && approvedAt !== undefined) approvals.unsigned(address, step, approvedAt);
        if (e instanceof Superseded || e instanceof SignAgain) return driveLocked(store, intent, { onSent: opts.onSent }, settle);
        // Reverted while estimating, or refused by the node: this step cannot land.
        if (e instanceof ChainRevertedError || e instanceof TransactionRejectedError) throw await fail(e.message);
        if (e instanceof ChainUnavailableError) {
          await release(store, current, 'the chain was unavailable before anything was signed; nothing was sent');
        }
        throw e;
      }
    }
    opts.onSent?.();

    let last: { hash: Hash; block: bigint } | null = null;
    for (const tx of r.txs) {
      const hash = tx.hash as Hash;
      const receipt = await chain.waitForReceipt(hash, RECEIPT_TIMEOUT_MS);
      if (receipt.status !== 'success') throw await fail(`${tx.label} transaction ${hash} reverted in block ${receipt.block}`);
      last = { hash, block: receipt.block };
    }
    if (!last) throw new Error(`intent ${r.id} has nothing to settle`);
    const done = await store.transitionIntent(r.account_id, r.id, ['signed'], 'done', {
      block: Number(last.block),
      executed_at: clock.now(),
      updated_at: clock.now(),
    });
    if (!done) {
      // A drive on another server settled it first (and announces it): its outcome is ours.
      const after = await store.getIntent(r.account_id, r.id);
      if (after?.state === 'done') return executedOf(after);
      throw new PresenceError('conflict', `intent ${r.id} changed state while settling`);
    }
    const executed = { record: done, hash: last.hash, block: Number(last.block) };
    settle({ status: 'done', ...executed });
    return executed;
  }

  /**
   * A record stopped before its first signature (a chain outage, a crash) sent nothing. An
   * approved hold goes back to `held`, to be approved again before it expires; a new intent
   * fails and releases its Idempotency-Key, so a retry plans afresh. Anything signed since
   * is left alone: that record is the drive's to finish.
   */
  async function release(store: IntentStore, r: IntentRecord, reason: string) {
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
  async function simulate(accountId: string, steps: PlannedTx[]): Promise<{ hash: Hash }> {
    const { address, key } = await wallets.signer(accountId);
    const [nonce, prepared] = await Promise.all([
      chain.nonceOf(address, 'pending'),
      chain.prepareTransaction(address, toRequest(steps.at(-1) as PlannedTx)),
    ]);
    const signed = await chain.signPrepared(key, prepared, nonce + steps.length - 1);
    return { hash: signed.hash };
  }

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
