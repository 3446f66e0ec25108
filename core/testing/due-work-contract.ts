// The store port's contract for background work (DESIGN.md, "Cost follows work, not
// accounts"): the questions the beat and upkeep ask across accounts — holds past their time,
// intents in flight, standing intents that may fire, memory the compactor must look at,
// events past retention — answered exactly, on every adapter, and still after a reopen.
// Run beside store-contract.ts by each adapter's test.
import { describe, expect, it } from 'vitest';
import type { MemoryEntry } from '../src/store/documents';
import type { StorePort } from '../src/store/store-port';
import { freshStoreEachTest, intentRecord, type OpenStoreHarness, type StoreHarness, standing } from './fixtures';

const entry = (key: string, due_at: number | null): MemoryEntry => ({
  key,
  tier: due_at === null ? 'pinned' : 'fading',
  pinned_by: due_at === null ? 'user' : null,
  weight: 0.25,
  note: '',
  touches: 1,
  last_seen: 0,
  due_at,
});

const daily = (next_at: number) => ({ trigger: { kind: 'daily' as const, at: '09:00' }, next_at });

const ids = (records: readonly { id: string }[]) => records.map((r) => r.id).sort();

export function describeDueWorkContract(name: string, open: OpenStoreHarness) {
  describe(`store contract, due work: ${name}`, () => {
    let h: StoreHarness;
    let store: StorePort;
    freshStoreEachTest(open, (opened) => {
      h = opened;
      store = opened.store;
    });

    it('dueHolds answers held intents of every account past their time, and nothing once they moved on', async () => {
      await store.createIntent(intentRecord('h1', 1, { state: 'held', confirm_id: 'cf_1', expires_at: 50 }));
      await store.createIntent(intentRecord('h2', 1, { account_id: 'b', state: 'held', confirm_id: 'cf_2', expires_at: 200 }));
      await store.createIntent(intentRecord('h3', 1, { account_id: 'c', state: 'held', confirm_id: 'cf_3', expires_at: 60 }));
      expect(ids(await store.dueHolds(10))).toEqual([]);
      expect(ids(await store.dueHolds(100))).toEqual(['h1', 'h3']);
      await store.transitionIntent('a', 'h1', ['held'], 'expired');
      store = await h.reopen();
      expect(ids(await store.dueHolds(100))).toEqual(['h3']);
      expect(ids(await store.dueHolds(1_000))).toEqual(['h2', 'h3']);
      // Put back on hold (an outage before signing): due again at its time.
      await store.transitionIntent('a', 'h1', ['expired'], 'held', { expires_at: 70 });
      expect(ids(await store.dueHolds(100))).toEqual(['h1', 'h3']);
    });

    it('intentsInStates finds intents in flight in every account, and none once they are done', async () => {
      await store.createIntent(intentRecord('x1', 1, { state: 'executing' }));
      await store.createIntent(intentRecord('x2', 1, { account_id: 'b', state: 'held', confirm_id: 'cf', expires_at: 5 }));
      await store.transitionIntent('b', 'x2', ['held'], 'signed');
      await store.transitionIntent('a', 'x1', ['executing'], 'signed');
      expect(ids(await store.intentsInStates(['executing', 'signed']))).toEqual(['x1', 'x2']);
      await store.transitionIntent('a', 'x1', ['signed'], 'done');
      store = await h.reopen();
      expect(ids(await store.intentsInStates(['executing', 'signed']))).toEqual(['x2']);
      expect(ids(await store.intentsInStates(['signed']))).toEqual(['x2']);
      expect(ids(await store.intentsInStates(['held', 'executing']))).toEqual([]);
    });

    it('dueStanding answers pending fires, daily times come and price triggers as asked, across accounts', async () => {
      await store.putStanding(standing('a', 'price-old', { created_at: 100 }));
      await store.putStanding(standing('b', 'price-new', { created_at: 500 }));
      await store.putStanding(standing('a', 'daily-due', daily(1_000)));
      await store.putStanding(standing('c', 'daily-later', daily(5_000)));
      await store.putStanding(standing('c', 'cancelled', { state: 'cancelled' }));
      const pending = [{ n: 1, at: 1, why: 'w', say: null }];
      await store.putStanding(standing('d', 'cancelled-pending', { state: 'cancelled', pending }));
      const at = (now: number, pricesMoved: boolean, createdSince = Number.POSITIVE_INFINITY) =>
        store.dueStanding({ now, pricesMoved, createdSince }).then(ids);
      expect(await at(2_000, false)).toEqual(['cancelled-pending', 'daily-due']);
      expect(await at(2_000, true)).toEqual(['cancelled-pending', 'daily-due', 'price-new', 'price-old']);
      expect(await at(10, false, 400)).toEqual(['cancelled-pending', 'price-new']);
      // A fire completed and a daily time moved on leave the answer; a new pending one joins it.
      await store.updateStanding('d', 'cancelled-pending', (r) => ({ ...r, pending: [] }));
      await store.updateStanding('a', 'daily-due', (r) => ({ ...r, next_at: 90_000 }));
      await store.updateStanding('c', 'daily-later', (r) => ({ ...r, pending }));
      store = await h.reopen();
      expect(await at(2_000, false)).toEqual(['daily-later']);
      expect(await at(100_000, false)).toEqual(['daily-due', 'daily-later']);
    });

    it('memoryDue answers entries of every account whose time has come (never a user pin), up to the limit', async () => {
      await store.changeMemory('a', ['k1', 'k2', 'pin'], () => ({
        put: [entry('k1', 10), entry('k2', 500), entry('pin', null)],
        result: 0,
      }));
      await store.changeMemory('b', ['k3'], () => ({ put: [entry('k3', 20)], result: 0 }));
      const due = async (now: number, limit = 100) => (await store.memoryDue(now, limit)).map((d) => `${d.account_id}/${d.key}`).sort();
      expect(await due(5)).toEqual([]);
      expect(await due(100)).toEqual(['a/k1', 'b/k3']);
      expect(await due(100, 1)).toHaveLength(1);
      await store.changeMemory('a', ['k1'], () => ({ put: [entry('k1', 900)], result: 0 }));
      await store.changeMemory('b', ['k3'], () => ({ remove: ['k3'], result: 0 }));
      store = await h.reopen();
      expect(await due(100)).toEqual([]);
      expect(await due(1_000)).toEqual(['a/k1', 'a/k2']);
    });

    it('pruneEventsOlderThan drops old events of every account; ids go on from where they were', async () => {
      for (const [account, at] of [
        ['a', 1],
        ['a', 2],
        ['a', 500],
        ['b', 3],
        ['b', 600],
        ['c', 700],
      ] as const) {
        await store.appendEvent(account, { type: 'memory', data: {}, at });
      }
      expect(await store.pruneEventsOlderThan(100)).toBe(3);
      expect((await store.eventsAfter('a', 0, 10)).map((e) => e.at)).toEqual([500]);
      expect((await store.eventsAfter('b', 0, 10)).map((e) => e.at)).toEqual([600]);
      store = await h.reopen();
      expect(await store.pruneEventsOlderThan(100)).toBe(0);
      expect((await store.appendEvent('a', { type: 'memory', data: {}, at: 800 })).id).toBe(4);
      expect((await store.eventBounds('c')).latest).toBe(1);
    });

    it('pruneIdempotency drops old answers of every account and keeps new ones', async () => {
      const answer = (key: string, created_at: number) => ({ key, fingerprint: 'f', status: 200, headers: {}, body: '{}', created_at });
      await store.putIdempotencyRecord('a', answer('old', 1));
      await store.putIdempotencyRecord('a', answer('new', 500));
      await store.putIdempotencyRecord('b', answer('old', 2));
      expect(await store.pruneIdempotency(100)).toBe(2);
      store = await h.reopen();
      expect(await store.getIdempotencyRecord('a', 'old')).toBeNull();
      expect(await store.getIdempotencyRecord('a', 'new')).toMatchObject({ created_at: 500 });
      expect(await store.pruneIdempotency(100)).toBe(0);
    });
  });
}
