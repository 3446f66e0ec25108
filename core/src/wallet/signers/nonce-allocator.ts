// Nonces per wallet without races: allocation happens under the wallet's lock and starts
// from the larger of what the chain has pending and what we handed out, so concurrent
// intents get consecutive nonces and none is used twice.
import type { Address } from 'viem';
import type { ChainPort } from '../../chain/chain-port';
import { createKeyedLock } from '../../concurrency/keyed-lock';

export type NonceAllocator = ReturnType<typeof createNonceAllocator>;

export function createNonceAllocator(chain: ChainPort) {
  const next = new Map<Address, number>();
  const lock = createKeyedLock();
  return {
    /**
     * Runs `use(nonce)` under the wallet's lock. The nonce counts as used only if `use`
     * resolves; if it throws, the next caller re-reads the chain.
     */
    async withNonce<T>(address: Address, use: (nonce: number) => Promise<T>): Promise<T> {
      return lock(address, async () => {
        const pending = await chain.nonceOf(address, 'pending');
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
