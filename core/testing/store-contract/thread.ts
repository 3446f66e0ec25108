// The store contract for the thread: ids per account, pages newest last, pruned to its newest. One family's section of
// the port; describeStoreContract (../store-contract.ts) runs every family's, and an adapter may
// run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { fanOut, range, type StoreHarness, turn } from '../fixtures';
import type { ContractContext } from './context';

export function threadContract(ctx: ContractContext) {
  ctx.section('thread', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

    it('appends with per-account ids; readThread answers newest last and pages back with `before`', async () => {
      for (const i of range(10)) expect((await store.appendThread('a', turn(`q${i}`, i))).id).toBe(i);
      const said = await store.appendThread('b', { kind: 'presence', at: 1, text: 'WETH crossed', cause: 'standing:s1' });
      expect(said).toEqual({ kind: 'presence', at: 1, text: 'WETH crossed', cause: 'standing:s1', id: 1 });
      expect(await store.readThread('b', { limit: 5 })).toEqual([said]);
      const ids = async (opts: { before?: number; limit: number }) => (await store.readThread('a', opts)).map((e) => e.id);
      expect(await ids({ limit: 3 })).toEqual([8, 9, 10]);
      expect(await ids({ before: 8, limit: 3 })).toEqual([5, 6, 7]);
      expect(await ids({ before: 3, limit: 3 })).toEqual([1, 2]);
      expect(await ids({ before: 1, limit: 3 })).toEqual([]);
      expect(await ids({ before: 100, limit: 2 })).toEqual([9, 10]);
      expect((await store.readThread('a', { before: 2, limit: 1 }))[0]).toEqual({ ...turn('q1', 1), id: 1 });
      expect(await store.readThread('nobody', { limit: 3 })).toEqual([]);
    });

    it('pruneThread keeps the newest keepLast (at least one), and never reuses an id', async () => {
      for (const i of range(10)) await store.appendThread('a', turn(`q${i}`, i));
      expect(await store.pruneThread('a', 3)).toBe(7);
      expect((await store.readThread('a', { limit: 100 })).map((e) => e.id)).toEqual([8, 9, 10]);
      expect(await store.pruneThread('a', 3)).toBe(0);
      expect(await store.pruneThread('a', 0)).toBe(2);
      expect(await store.pruneThread('nobody', 5)).toBe(0);
      if (ctx.durable) store = await h.reopen();
      expect((await store.readThread('a', { limit: 100 })).map((e) => e.id)).toEqual([10]);
      expect((await store.appendThread('a', turn('q11', 11))).id).toBe(11);
    });

    it('pruning while others append never drops an entry appended meanwhile (it is among the newest)', async () => {
      for (const i of range(20)) await store.appendThread('a', turn(`q${i}`, i));
      const [p] = await h.peers(1);
      const [appended] = await Promise.all([
        Promise.all(range(10).map((i) => (p as StorePort).appendThread('a', turn(`r${i}`, 100 + i)))),
        store.pruneThread('a', 15),
      ]);
      const kept = (await store.readThread('a', { limit: 100 })).map((e) => e.id);
      for (const e of appended) expect(kept).toContain(e.id);
      expect(kept).toEqual(range(kept.length, kept[0]));
    });

    it('concurrent appends from several servers get strictly increasing ids with no gap', async () => {
      const appended = await fanOut(await h.peers(4), 10, (s, i) => s.appendThread('a', turn(`q${i}`)));
      expect(appended.map((e) => e.id).sort((x, y) => x - y)).toEqual(range(40));
      const read = await store.readThread('a', { limit: 100 });
      expect(read.map((e) => e.id)).toEqual(range(40));
      for (const e of appended) expect(read[e.id - 1]).toEqual(e);
    });
  });
}
