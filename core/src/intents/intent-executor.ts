// Durable execution of a planned intent. Each transaction is signed and its hash and raw
// bytes stored (state `signed`) BEFORE it is broadcast, so after a crash or a retry the
// record says exactly what may be on chain: recovery re-broadcasts the same bytes (same
// nonce, same hash — it can land at most once) and waits for the receipt instead of
// signing anything new.
import type { Address, Hash, Hex } from 'viem';
import type { ChainPort } from '../chain/chain-port';
import { ChainRevertedError, TransactionRejectedError } from '../chain/errors';
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { IntentRecord, PlannedTx } from '../store/documents';
import type { StorePort } from '../store/store-port';
import type { NonceAllocator } from '../wallet/nonce-allocator';
import type { Wallets } from '../wallet/wallets';

export type IntentStore = Pick<
  StorePort,
  'createIntent' | 'getIntent' | 'transitionIntent' | 'listIntents' | 'findIntentByConfirmId' | 'findIntentByIdempotencyKey'
>;

export type Executed = { record: IntentRecord; hash: Hash; block: number };

const RECEIPT_TIMEOUT_MS = 60_000;

export type IntentExecutor = ReturnType<typeof createIntentExecutor>;

export function createIntentExecutor({
  chain,
  wallets,
  nonces,
  clock,
}: {
  chain: ChainPort;
  wallets: Wallets;
  nonces: NonceAllocator;
  clock: Clock;
}) {
  const toRequest = (s: PlannedTx) => ({
    to: s.to as Address,
    data: s.data as Hex,
    value: BigInt(s.value),
    ...(s.gas ? { gas: BigInt(s.gas) } : {}),
    ...(s.gas_headroom ? { gasHeadroom: BigInt(s.gas_headroom) } : {}),
  });

  /** Signs and broadcasts the steps not yet sent, then waits for every receipt. `onSent`
   * marks the moment the last one is broadcast (timing only). */
  async function run(store: IntentStore, intent: IntentRecord, onSent?: () => void): Promise<Executed> {
    let record = intent;
    const address = await wallets.address(record.account_id);
    const key = await wallets.privateKey(record.account_id);
    for (let i = record.txs.length; i < record.steps.length; i++) {
      const step = record.steps[i] as PlannedTx;
      try {
        record = await nonces.withNonce(address, async (nonce) => {
          const signed = await chain.signTransaction(key, toRequest(step), nonce);
          const next = await store.transitionIntent(record.account_id, record.id, ['executing', 'signed'], 'signed', {
            txs: [...record.txs, { hash: signed.hash, raw: signed.raw, nonce, label: step.label }],
            updated_at: clock.now(),
          });
          if (!next) throw new PresenceError('conflict', `intent ${record.id} changed state while signing`);
          await chain.sendRaw(signed.raw);
          return next;
        });
      } catch (e) {
        if (e instanceof ChainRevertedError || e instanceof TransactionRejectedError) {
          // Nothing from this step reached the chain: the intent fails cleanly here.
          throw await fail(store, record, e.message);
        }
        throw e;
      }
    }
    onSent?.();
    return settle(store, record);
  }

  /** Waits for the receipts of everything sent (re-broadcasting bytes the node lost). */
  async function settle(store: IntentStore, intent: IntentRecord): Promise<Executed> {
    let last: { hash: Hash; block: bigint } | null = null;
    for (const tx of intent.txs) {
      const hash = tx.hash as Hash;
      if (!(await chain.getTransaction(hash))) await chain.sendRaw(tx.raw as Hex);
      const receipt = await chain.waitForReceipt(hash, RECEIPT_TIMEOUT_MS);
      if (receipt.status !== 'success')
        throw await fail(store, intent, `${tx.label} transaction ${hash} reverted in block ${receipt.block}`);
      last = { hash, block: receipt.block };
    }
    // A crash or a failed RPC between the steps of a plan (after the approval, before the swap)
    // leaves a signed record whose later steps were never signed, so none of them can be on
    // chain. Now that the earlier ones are mined (so the pending nonce is past them), sign and
    // send the rest instead of calling the intent done without them. The swap still carries
    // the quote's minimum out and deadline, so a stale plan reverts rather than trading badly.
    if (intent.txs.length < intent.steps.length) return run(store, intent);
    if (!last) throw new Error(`intent ${intent.id} has nothing to settle`);
    const done =
      (await store.transitionIntent(intent.account_id, intent.id, ['signed'], 'done', {
        block: Number(last.block),
        executed_at: clock.now(),
        updated_at: clock.now(),
      })) ?? (await store.getIntent(intent.account_id, intent.id));
    if (!done || done.state !== 'done') throw new PresenceError('conflict', `intent ${intent.id} ended as ${done?.state}`);
    return { record: done, hash: last.hash, block: Number(last.block) };
  }

  async function fail(store: IntentStore, intent: IntentRecord, reason: string) {
    await store.transitionIntent(intent.account_id, intent.id, ['executing', 'signed'], 'failed', {
      error: reason,
      updated_at: clock.now(),
    });
    return new PresenceError('conflict', `the action failed on chain: ${reason}`, { extra: { intent_id: intent.id } });
  }

  /**
   * Test keys: sign the plan's final transaction (the one that does the thing) at the nonce
   * it would get, send nothing, consume nothing. A swap behind an approval already carries
   * a fixed gas limit, so signing it needs no simulation of the approval.
   */
  async function simulate(accountId: string, steps: PlannedTx[]): Promise<{ hash: Hash }> {
    const address = await wallets.address(accountId);
    const key = await wallets.privateKey(accountId);
    const nonce = await chain.nonceOf(address, 'pending');
    const signed = await chain.signTransaction(key, toRequest(steps.at(-1) as PlannedTx), nonce + steps.length - 1);
    return { hash: signed.hash };
  }

  return { run, settle, simulate };
}
