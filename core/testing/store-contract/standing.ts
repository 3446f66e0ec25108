// The store contract for standing intents: stored, listed, updated under the lock, what may fire.
// One family's section of the port; describeStoreContract (../store-contract.ts) runs every
// family's, and an adapter may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { account, fanOut, type StoreHarness, standing } from '../fixtures';
import type { ContractContext } from './context';

export function standingContract(ctx: ContractContext) {
  ctx.section('standing intents', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

    it('puts (replacing by id), lists per account, and updates', async () => {
      for (const id of ['a', 'b']) await store.createAccount(account(id));
      await store.putStanding(standing('a', 's1'));
      await store.putStanding(standing('a', 's2'));
      await store.putStanding(standing('b', 's3'));
      await store.putStanding({ ...standing('a', 's1'), armed: false });
      expect((await store.listStanding('a')).map((r) => [r.id, r.armed]).sort()).toEqual([
        ['s1', false],
        ['s2', true],
      ]);
      expect(await store.listStanding('nobody')).toEqual([]);
      const next = await store.updateStanding('b', 's3', (r) => ({ ...r, state: 'cancelled' }));
      expect(next).toEqual({ ...standing('b', 's3'), state: 'cancelled' });
      expect(await store.listStanding('b')).toEqual([next]);
      expect(await store.updateStanding('b', 's1', (r) => r)).toBeNull();
    });

    it('concurrent updates from several servers lose none', async () => {
      await store.putStanding(standing('a', 's1'));
      await fanOut(await h.peers(4), 5, (s) => s.updateStanding('a', 's1', (r) => ({ ...r, fired_count: r.fired_count + 1 })));
      expect((await store.listStanding('a'))[0]?.fired_count).toBe(20);
    });
  });
}
