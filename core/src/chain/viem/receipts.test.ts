// Receipt polling: a miss is asked again at once a few times (a devnet mines within a fraction
// of a millisecond of the send, sooner than any timer), then with pauses that grow, so a real
// chain's slow blocks are not polled in a loop. Timers are faked: a poll that waited on one
// would never come.
import { type Hash, TransactionReceiptNotFoundError } from 'viem';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { RpcClient } from './client';
import { waitForReceipt } from './receipts';

const hash = `0x${'ab'.repeat(32)}` as Hash;
const nextTurn = () => new Promise((r) => setImmediate(r));

/** A node whose receipt appears at the `minedAt`-th ask (never, for Infinity). */
function node(minedAt: number) {
  const rpc = {
    asked: 0,
    client: {
      getTransactionReceipt: async () => {
        rpc.asked++;
        if (rpc.asked < minedAt) throw new TransactionReceiptNotFoundError({ hash });
        return { blockNumber: 7n, status: 'success', gasUsed: 21_000n };
      },
    },
    guard: <T>(_what: string, fn: () => Promise<T>) => fn(),
  };
  return rpc;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

it('asks again at once after a miss: no timer stands between the block and its receipt', async () => {
  const rpc = node(3);
  const receipt = await waitForReceipt(rpc as unknown as RpcClient, hash, 60_000, { pollMs: 100, now: () => 0 });
  expect(receipt).toEqual({ hash, block: 7n, status: 'success', gasUsed: 21_000n });
  expect(rpc.asked).toBe(3);
});

it('after a few quick asks, waits between polls (1 ms, doubling)', async () => {
  const rpc = node(Number.POSITIVE_INFINITY);
  void waitForReceipt(rpc as unknown as RpcClient, hash, 60_000, { pollMs: 100, now: () => 0 }).catch(() => undefined);
  for (let i = 0; i < 20; i++) await nextTurn();
  // The first ask and three quick ones; the next waits for a timer.
  expect(rpc.asked).toBe(4);
  await vi.advanceTimersByTimeAsync(1);
  expect(rpc.asked).toBe(5);
  await vi.advanceTimersByTimeAsync(1);
  expect(rpc.asked).toBe(5);
  await vi.advanceTimersByTimeAsync(1);
  expect(rpc.asked).toBe(6);
});
