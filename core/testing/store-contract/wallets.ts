// The store contract for wallets: the first one stored for an account wins. One family's section
// of the port; describeStoreContract (../store-contract.ts) runs every family's, and an adapter
// may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { fanOut, type StoreHarness, wallet } from '../fixtures';
import type { ContractContext } from './context';

export function walletsContract(ctx: ContractContext) {
  ctx.section('wallets', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

    it('the first wallet stored for an account wins, even when several servers race', async () => {
      expect(await store.getWallet('a')).toBeNull();
      const answers = await fanOut(await h.peers(4), 2, (s, i) => s.createWallet(wallet('a', `0x${i}`)));
      const stored = await store.getWallet('a');
      expect(stored).not.toBeNull();
      for (const w of answers) expect(w).toEqual(stored);
      expect((await store.createWallet(wallet('a', '0xlater'))).address).toBe(stored?.address);
    });

    it('markWalletFunded marks that account’s wallet only', async () => {
      await store.createWallet(wallet('a', '0xa'));
      await store.createWallet(wallet('b', '0xb'));
      await store.markWalletFunded('a');
      expect(await store.getWallet('a')).toEqual({ ...wallet('a', '0xa'), funded: true });
      expect((await store.getWallet('b'))?.funded).toBe(false);
    });
  });
}
