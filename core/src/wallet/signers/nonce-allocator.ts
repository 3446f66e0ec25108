// Nonces per wallet without races: allocation happens under the wallet's lock and starts
// from the larger of what the chain has pending and what we handed out, so concurrent
// intents get consecutive nonces and none is used twice. The lock is the cluster's (held
// from the nonce read through signing to the broadcast), so with many servers on one
// database the chain's pending count already includes every other server's transactions
// when the next one reads it; the local map only covers a node slow to count its own.
import type { Address } from 'viem';
import type { ChainPort } from '../../chain/chain-port';
import { type ClusterLocks, createLocalLocks } from '../../concurrency/cluster-locks';

export type NonceAllocator = ReturnType<typeof createNonceAllocator>;

export function createNonceAllocator(chain: ChainPort, locks: ClusterLocks = createLocalLocks()) {
  const next = new Map<Address, number>();
  return {
    /**
     * Runs `use(nonce)` under the wallet's lock. The nonce counts as used only if `use`
     * resolves; if it throws, the next caller re-reads the chain. `check`, when given, runs
     * under the lock alongside the nonce read (a store read beside an RPC, not after it: this
     * is every intent's critical section); if it throws, `use` does not run.
     */
    async withNonce<T>(address: Address, use: (nonce: number) => Promise<T>, check?: () => Promise<void>): Promise<T> {
      return locks.withLock(`nonce:${address.toLowerCase()}`, async () => {
        const [pending] = await Promise.all([chain.nonceOf(address, 'pending'), check?.()]);
        const nonce = Math.max(pending, next.get(address) ?? 0);
        try {
          const result = await use(nonce);
          next.set(address, nonce + 1);
          return result;
        } catch (e) {
          next.delete(address);
          throw e;
        }
      });
    },
  };
}
