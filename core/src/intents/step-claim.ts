// Claiming an intent's next step within a drive (intent-executor.ts): signed, stored and sent
// in the wallet's next batch (nonce-allocator.ts), where the records of every intent in it
// commit together, before any of them is broadcast. Each step is signed under the wallet's
// cluster-wide nonce lock after checking that the stored record still lacks it, so a step is
// signed once however many drives (on however many servers) reach for it.
import type { Address, Hash, Hex } from 'viem';
import type { SignedTx } from '../chain/chain-port';
import { ChainRevertedError, ChainUnavailableError, TransactionRejectedError } from '../chain/errors';
import { PresenceError } from '../errors/presence-error';
import type { IntentRecord, PlannedTx } from '../store/documents';
import type { StoreOps } from '../store/store-port';
import type { ApprovalLedger } from '../wallet/signers/approvals';
import { type NonceAllocator, SignAgain } from '../wallet/signers/nonce-allocator';
import { type DriveParts, failIntent, type IntentStore } from './intent-settle';

export type ClaimParts = DriveParts & {
  nonces: NonceAllocator;
  approvals: ApprovalLedger;
  /** Puts back a record stopped before its first signature (the executor's `release`). */
  release: (store: IntentStore, r: IntentRecord, reason: string) => Promise<void>;
};

/** Another drive (on another server) signed this step or ended the intent first. */
class Superseded extends Error {}

/** An approval step found unneeded at signing time (approvals.ts): the record without it. */
class StepDropped extends Error {
  constructor(readonly record: IntentRecord) {
    super('step dropped');
  }
}

export const toRequest = (s: PlannedTx) => ({
  to: s.to as Address,
  data: s.data as Hex,
  value: BigInt(s.value),
  ...(s.gas ? { gas: BigInt(s.gas) } : {}),
  ...(s.gas_headroom ? { gasHeadroom: BigInt(s.gas_headroom) } : {}),
});

/**
 * What was stored must be on the node before anything new is signed: the next step's nonce
 * comes after it. A stored transaction the node refuses now (its nonce went to another) can
 * never land, and neither can the steps behind it.
 */
export async function resendStored(d: DriveParts, r: IntentRecord) {
  for (const tx of r.txs) {
    if (await d.chain.getTransaction(tx.hash as Hash)) continue;
    try {
      await d.chain.sendRaw(tx.raw as Hex);
    } catch (e) {
      if (e instanceof TransactionRejectedError)
        throw await failIntent(d, r, `${tx.label} transaction ${tx.hash} can no longer be sent: ${e.reason}`);
      throw e;
    }
  }
}

/**
 * Claims the record's next step. Answers the record with the step signed, or without it when
 * it was an approval found unneeded; null when another drive signed it or ended the intent
 * first (or the batch must be signed again): the drive then starts again from the record.
 */
export async function claimStep(d: ClaimParts, current: IntentRecord, { address, key }: { address: Address; key: Hex }) {
  const { chain, clock, store, approvals } = d;
  const i = current.txs.length;
  const step = current.steps[i] as PlannedTx;
  // Gas and fees are asked for before the wallet's nonce lock and alongside its nonce read,
  // so the three travel as one JSON-RPC batch (the estimate sees the same mined state either
  // way). Its failure is taken up inside the lock.
  const prepared = chain.prepareTransaction(address, toRequest(step));
  prepared.catch(() => undefined);
  const approval = step.label === 'approve';
  /** The nonce this step's approval was signed at, until it is known sent or not. */
  let approvedAt: number | undefined;
  /** Whether the stored record still lacks this step (no other drive signed it or ended the intent). */
  const unchanged = async (on: Pick<StoreOps, 'getIntent'> = store) => {
    const stored = await on.getIntent(current.account_id, current.id);
    return !!stored && (stored.state === 'executing' || stored.state === 'signed') && stored.txs.length === current.txs.length;
  };
  const tx = (signed: SignedTx, nonce: number) => ({ hash: signed.hash, raw: signed.raw, nonce, label: step.label });
  try {
    // Null: moved on while waiting (another drive signed this step, or ended the intent).
    return await d.nonces.claim(address, {
      atomically: store.atomically,
      ready: (unit) => unchanged(unit),
      async sign(nonce) {
        // Once per token and spender: an approval another intent already sent is not sent again.
        // Dropping the step writes the record, so it is first checked as `ready` checks.
        if (approval && !(await unchanged())) throw new Superseded();
        if (approval && (await approvals.covered(address, step, current.steps[i + 1]))) throw new StepDropped(await dropStep(d, current));
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
        unit.transitionIntent(current.account_id, current.id, ['signed'], current.state, { txs: current.txs, updated_at: clock.now() }),
      send: (signed) => chain.sendRaw(signed.raw),
    });
  } catch (e) {
    if (e instanceof StepDropped) return e.record;
    // Signed but never sent: the approval it stood for is not pending (or it would drop itself when signed again).
    if (e instanceof SignAgain && approvedAt !== undefined) approvals.unsigned(address, step, approvedAt);
    if (e instanceof Superseded || e instanceof SignAgain) return null;
    // Reverted while estimating, or refused by the node: this step cannot land.
    if (e instanceof ChainRevertedError || e instanceof TransactionRejectedError) throw await failIntent(d, current, e.message);
    if (e instanceof ChainUnavailableError) {
      await d.release(store, current, 'the chain was unavailable before anything was signed; nothing was sent');
    }
    throw e;
  }
}

/** The record without its next step, an approval another intent's already covers. */
async function dropStep({ store, clock }: DriveParts, current: IntentRecord): Promise<IntentRecord> {
  const i = current.txs.length;
  const steps = current.steps.filter((_, j) => j !== i);
  const dropped = await store.transitionIntent(current.account_id, current.id, ['executing', 'signed'], current.state, {
    steps,
    updated_at: clock.now(),
  });
  if (!dropped) throw new PresenceError('conflict', `intent ${current.id} changed state while signing`);
  return dropped;
}
