// How a drive of an intent ends (intent-executor.ts): every transaction mined makes it `done`,
// one reverted or refused for good makes it `failed`. Whoever makes the final transition
// reports it through `settle` (announced once, after the intent's lock is released); a drive
// that loses the final compare-and-set to another server's reads that outcome instead.
import type { Hash } from 'viem';
import type { ChainPort } from '../chain/chain-port';
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { IntentRecord } from '../store/documents';
import type { StorePort } from '../store/store-port';

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

/** What one drive works with: the chain, the clock, the intent's store, and where its outcome goes. */
export type DriveParts = { chain: ChainPort; clock: Clock; store: IntentStore; settle: (o: Outcome) => void };

const RECEIPT_TIMEOUT_MS = 60_000;

export const executedOf = (r: IntentRecord): Executed => ({ record: r, hash: r.txs.at(-1)?.hash as Hash, block: r.block as number });

/** Ends a live intent `failed` (announcing it) and answers the error its drive throws. */
export async function failIntent({ store, clock, settle }: DriveParts, r: IntentRecord, reason: string) {
  const failed = await store.transitionIntent(r.account_id, r.id, ['executing', 'signed'], 'failed', {
    error: reason,
    updated_at: clock.now(),
  });
  if (failed) settle({ status: 'failed', record: failed });
  return new PresenceError('conflict', `the action failed on chain: ${reason}`, { extra: { intent_id: r.id } });
}

/** Every step signed and sent: waits for each receipt, then marks the intent `done`. */
export async function settleReceipts(d: DriveParts, r: IntentRecord): Promise<Executed> {
  const { store, clock } = d;
  let last: { hash: Hash; block: bigint } | null = null;
  for (const tx of r.txs) {
    const hash = tx.hash as Hash;
    const receipt = await d.chain.waitForReceipt(hash, RECEIPT_TIMEOUT_MS);
    if (receipt.status !== 'success') throw await failIntent(d, r, `${tx.label} transaction ${hash} reverted in block ${receipt.block}`);
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
  d.settle({ status: 'done', ...executed });
  return executed;
}
