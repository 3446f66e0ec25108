// What became of a sent transaction: its receipt (polled until it arrives or the wait runs
// out) and the transaction as the node knows it.
import { getAddress, type Hash, TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem';
import type { TxInfo, TxReceipt } from '../chain-port';
import { ReceiptTimeoutError } from '../errors';
import type { RpcClient } from './client';

export interface ReceiptPolling {
  /** The longest pause between two polls. */
  pollMs: number;
  /** Unix milliseconds. */
  now: () => number;
}

/**
 * Polls that follow a miss without a pause (only a turn of the event loop between them). A
 * devnet mines within a fraction of a millisecond of the send, often just after the first
 * poll answered, and the shortest timer (setTimeout(1)) sleeps 1–1.5 ms: a timer there was
 * idle time spent after the receipt existed. A real chain's RPC round trip spaces these out
 * by itself; then the pauses start at 1 ms and double up to the poll period.
 */
const QUICK_POLLS = 3;
const FIRST_RECEIPT_POLL_MS = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nextTurn = () => new Promise((r) => setImmediate(r));

export async function waitForReceipt(
  { client, guard }: RpcClient,
  hash: Hash,
  timeout: number,
  polling: ReceiptPolling,
): Promise<TxReceipt> {
  const { pollMs, now } = polling;
  const until = now() + timeout;
  // A devnet mines within a millisecond of the send, a real chain within seconds: ask
  // again at once, then back off to the poll period, so neither waits a whole period for
  // nothing nor floods the RPC.
  let wait = FIRST_RECEIPT_POLL_MS;
  for (let polls = 1; ; polls++) {
    const receipt = await guard('eth_getTransactionReceipt', () =>
      client.getTransactionReceipt({ hash }).catch((err) => {
        if (err instanceof TransactionReceiptNotFoundError) return null;
        throw err;
      }),
    );
    if (receipt) {
      return { hash, block: receipt.blockNumber, status: receipt.status, gasUsed: receipt.gasUsed };
    }
    if (now() >= until) throw new ReceiptTimeoutError(hash, timeout);
    if (polls <= QUICK_POLLS) {
      await nextTurn();
      continue;
    }
    await sleep(Math.min(wait, Math.max(1, until - now())));
    wait = Math.min(pollMs, wait * 2);
  }
}

/** null when the node does not know the hash. */
export function getTransaction({ client, guard }: RpcClient, hash: Hash): Promise<TxInfo | null> {
  return guard('eth_getTransactionByHash', async () => {
    try {
      const tx = await client.getTransaction({ hash });
      return {
        hash: tx.hash,
        from: getAddress(tx.from),
        to: tx.to ? getAddress(tx.to) : null,
        nonce: tx.nonce,
        value: tx.value,
        block: tx.blockNumber ?? null,
      };
    } catch (err) {
      if (err instanceof TransactionNotFoundError) return null;
      throw err;
    }
  });
}
