// The store contract for link codes: made, redeemed once, counted while outstanding. One family's
// section of the port; describeStoreContract (../store-contract.ts) runs every family's, and an
// adapter may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { fanOut, link, type StoreHarness } from '../fixtures';
import type { ContractContext } from './context';

export function linksContract(ctx: ContractContext) {
  ctx.section('links', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

    it('a link redeems once, before it expires', async () => {
      await store.putLink(link('h1', 100), 0);
      await store.putLink(link('h2', 100), 0);
      expect(await store.redeemLink('nope', 10)).toBeNull();
      expect(await store.redeemLink('h1', 10)).toEqual({ ...link('h1', 100), redeemed_at: 10 });
      expect(await store.redeemLink('h1', 11)).toBeNull();
      expect(await store.redeemLink('h2', 100)).toBeNull();
    });

    it('of servers racing to redeem one link exactly one gets it', async () => {
      await store.putLink(link('h', 100), 0);
      const results = await fanOut(await h.peers(4), 3, (s) => s.redeemLink('h', 10));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it('putLink drops the links expired by then and keeps the others', async () => {
      await store.putLink(link('expired', 100), 0);
      await store.putLink(link('live', 300), 0);
      await store.putLink(link('new', 400), 150);
      // Redeeming "at" 50 would succeed for a stored link: the expired one must be gone.
      expect(await store.redeemLink('expired', 50)).toBeNull();
      expect(await store.redeemLink('live', 50)).not.toBeNull();
      expect(await store.redeemLink('new', 160)).not.toBeNull();
    });

    it("counts an account's links that are neither redeemed nor expired", async () => {
      expect(await store.countOutstandingLinks('a', 0)).toBe(0);
      await store.putLink(link('l1', 100), 0);
      await store.putLink(link('l2', 200), 0);
      await store.putLink(link('l3', 300), 0);
      await store.putLink({ ...link('other', 300), account_id: 'b' }, 0);
      expect(await store.countOutstandingLinks('a', 10)).toBe(3);
      await store.redeemLink('l2', 20);
      expect(await store.countOutstandingLinks('a', 20)).toBe(2);
      expect(await store.countOutstandingLinks('a', 100)).toBe(1);
      expect(await store.countOutstandingLinks('b', 100)).toBe(1);
      expect(await store.countOutstandingLinks('a', 300)).toBe(0);
    });
  });
}
