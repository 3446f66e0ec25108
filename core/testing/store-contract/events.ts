// The store contract for the events log: ids 1, 2, 3… per account, pages, bounds, pruning. One
// family's section of the port; describeStoreContract (../store-contract.ts) runs every family's,
// and an adapter may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { fanOut, range, type StoreHarness } from '../fixtures';
import type { ContractContext } from './context';

export function eventsContract(ctx: ContractContext) {
  ctx.section('events', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

    it('ids count 1, 2, 3… per account; eventsAfter pages by id; bounds follow', async () => {
      expect(await store.eventBounds('a')).toEqual({ oldest: null, latest: 0 });
      for (const i of range(5)) expect((await store.appendEvent('a', { type: 'memory', data: { i }, at: i })).id).toBe(i);
      expect((await store.appendEvent('b', { type: 'memory', data: {}, at: 9 })).id).toBe(1);
      expect(await store.eventsAfter('a', 1, 2)).toEqual([
        { id: 2, type: 'memory', data: { i: 2 }, at: 2 },
        { id: 3, type: 'memory', data: { i: 3 }, at: 3 },
      ]);
      expect((await store.eventsAfter('a', 3, 100)).map((e) => e.id)).toEqual([4, 5]);
      expect(await store.eventsAfter('a', 5, 100)).toEqual([]);
      expect(await store.eventBounds('a')).toEqual({ oldest: 1, latest: 5 });
    });

    it('concurrent appends from several servers get strictly increasing ids with no gap or repeat', async () => {
      const appended = await fanOut(await h.peers(4), 25, (s, i) => s.appendEvent('a', { type: 'memory', data: { i }, at: i }));
      expect(appended.map((e) => e.id).sort((x, y) => x - y)).toEqual(range(100));
      const stored = await store.eventsAfter('a', 0, 1000);
      expect(stored.map((e) => e.id)).toEqual(range(100));
      // Each id carries the event that was answered with it.
      for (const e of appended) expect(stored[e.id - 1]).toEqual(e);
      expect(await store.eventBounds('a')).toEqual({ oldest: 1, latest: 100 });
    });

    it('pruneEvents keeps the newest keepLast, and never reuses an id', async () => {
      for (const i of range(10)) await store.appendEvent('a', { type: 'memory', data: {}, at: i });
      expect(await store.pruneEvents('a', 3, 0)).toBe(7);
      expect((await store.eventsAfter('a', 0, 100)).map((e) => e.id)).toEqual([8, 9, 10]);
      expect(await store.eventBounds('a')).toEqual({ oldest: 8, latest: 10 });
      expect((await store.appendEvent('a', { type: 'memory', data: {}, at: 11 })).id).toBe(11);
    });

    it('pruneEvents drops events older than the cut-off, and keeps the newest even when all are stale', async () => {
      for (const i of range(10, 0)) await store.appendEvent('a', { type: 'memory', data: {}, at: i });
      expect(await store.pruneEvents('a', 100, 5)).toBe(5);
      expect((await store.eventsAfter('a', 0, 100)).map((e) => e.at)).toEqual([5, 6, 7, 8, 9]);
      expect(await store.pruneEvents('a', 100, 1e15)).toBe(4);
      expect(await store.eventBounds('a')).toEqual({ oldest: 10, latest: 10 });
      expect(await store.pruneEvents('a', 0, 1e15)).toBe(0);
      expect(await store.pruneEvents('nobody', 0, 1e15)).toBe(0);
      if (ctx.durable) store = await h.reopen();
      expect((await store.appendEvent('a', { type: 'memory', data: {}, at: 11 })).id).toBe(11);
    });

    it('pruning stale events while others append never drops a fresh one appended meanwhile', async () => {
      for (const i of range(20)) await store.appendEvent('a', { type: 'memory', data: { i }, at: 0 });
      const [p] = await h.peers(1);
      const [appended] = await Promise.all([
        Promise.all(range(10).map(() => (p as StorePort).appendEvent('a', { type: 'memory', data: {}, at: 100 }))),
        store.pruneEvents('a', 1000, 50),
      ]);
      const kept = (await store.eventsAfter('a', 0, 100)).map((e) => e.id);
      for (const e of appended) expect(kept).toContain(e.id);
      expect(kept).toEqual(range(kept.length, kept[0]));
    });
  });
}
