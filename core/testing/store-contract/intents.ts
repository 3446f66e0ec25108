// The store contract for intents: lookups, compare-and-set transitions, the day's spend, what is
// due across accounts. One family's section of the port; describeStoreContract
// (../store-contract.ts) runs every family's, and an adapter may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { account, fanOut, intentRecord, type StoreHarness } from '../fixtures';
import type { ContractContext } from './context';

export function intentsContract(ctx: ContractContext) {
  ctx.section('intents', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

    it('creates and reads intents, finds them by confirm id and Idempotency-Key, and refuses a second create of an id', async () => {
      const held = intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf_1', idempotency_key: 'idem-1' });
      await store.createIntent(held);
      await store.createIntent(intentRecord('in_2', 2));
      expect(await store.getIntent('a', 'in_1')).toEqual(held);
      expect(await store.getIntent('b', 'in_1')).toBeNull();
      expect(await store.findIntentByConfirmId('a', 'cf_1')).toEqual(held);
      expect(await store.findIntentByIdempotencyKey('a', 'idem-1')).toEqual(held);
      expect(await store.findIntentByConfirmId('a', 'cf_x')).toBeNull();
      expect(await store.findIntentByIdempotencyKey('b', 'idem-1')).toBeNull();
      await expect(store.createIntent(intentRecord('in_1', 3))).rejects.toMatchObject({ type: 'conflict' });
      expect(await store.getIntent('a', 'in_1')).toEqual(held);
    });

    it('transitionIntent moves only from the given states, applies the patch, and re-indexes it', async () => {
      await store.createIntent(intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf_1' }));
      expect(await store.transitionIntent('a', 'in_1', ['executing'], 'signed')).toBeNull();
      expect(await store.transitionIntent('a', 'in_x', ['held'], 'executing')).toBeNull();
      const moved = await store.transitionIntent('a', 'in_1', ['held', 'signed'], 'executing', { confirm_id: null, updated_at: 5 });
      expect(moved).toEqual(intentRecord('in_1', 1, { state: 'executing', confirm_id: null, updated_at: 5 }));
      expect(await store.getIntent('a', 'in_1')).toEqual(moved);
      expect(await store.findIntentByConfirmId('a', 'cf_1')).toBeNull();
    });

    it('transitionIntent is compare-and-set: of racing servers exactly one wins', async () => {
      await store.createIntent(intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf_1' }));
      const results = await fanOut(await h.peers(4), 3, (s, i) =>
        s.transitionIntent('a', 'in_1', ['held'], 'executing', { error: `winner ${i}` }),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await store.getIntent('a', 'in_1')).toEqual(winners[0]);
    });

    it('lists an account’s intents in creation order, optionally by state', async () => {
      await store.createIntent(intentRecord('in_3', 1, { state: 'done' }));
      await store.createIntent(intentRecord('in_1', 2, { state: 'held' }));
      await store.createIntent(intentRecord('in_2', 3, { state: 'failed' }));
      await store.createIntent(intentRecord('in_b', 4, { account_id: 'b' }));
      expect((await store.listIntents('a')).map((r) => r.id)).toEqual(['in_3', 'in_1', 'in_2']);
      expect((await store.listIntents('a', { states: ['held', 'failed'] })).map((r) => r.id)).toEqual(['in_1', 'in_2']);
      await store.transitionIntent('a', 'in_1', ['held'], 'denied');
      expect((await store.listIntents('a', { states: ['held'] })).map((r) => r.id)).toEqual([]);
    });

    it('lists only those held for approval, and only the newest few, still oldest first', async () => {
      for (const [i, id] of ['in_1', 'in_2', 'in_3', 'in_4', 'in_5'].entries())
        await store.createIntent(intentRecord(id, i + 1, { state: i === 2 ? 'done' : 'held', confirm_id: i === 1 ? null : `cf_${i}` }));
      await store.createIntent(intentRecord('in_b', 9, { account_id: 'b', confirm_id: 'cf_b' }));
      const ids = async (filter: Parameters<StorePort['listIntents']>[1]) => (await store.listIntents('a', filter)).map((r) => r.id);
      expect(await ids({ confirmable: true })).toEqual(['in_1', 'in_3', 'in_4', 'in_5']);
      expect(await ids({ confirmable: true, last: 3 })).toEqual(['in_3', 'in_4', 'in_5']);
      expect(await ids({ confirmable: true, states: ['held'], last: 2 })).toEqual(['in_4', 'in_5']);
      expect(await ids({ last: 2 })).toEqual(['in_4', 'in_5']);
      expect(await ids({ states: ['done'], last: 5 })).toEqual(['in_3']);
      // The holds counted (a held record without a confirm id included), each once; an answered one no longer.
      expect([await store.heldCount('a'), await store.heldCount('b'), await store.heldCount('nobody')]).toEqual([4, 0, 0]);
      await store.transitionIntent('a', 'in_1', ['held'], 'denied');
      await store.transitionIntent('a', 'in_4', ['held'], 'held', { updated_at: 99 });
      expect(await store.heldCount('a')).toBe(3);
    });

    it('spentSince sums what is executing, signed or done since then, by when it spent', async () => {
      const usd = (n: number) => (BigInt(n) * 10n ** 18n).toString();
      await store.createIntent(intentRecord('done', 1, { state: 'done', value_usd: usd(5), updated_at: 1, executed_at: 100 }));
      await store.createIntent(intentRecord('signed', 1, { state: 'signed', value_usd: usd(7), updated_at: 200 }));
      await store.createIntent(intentRecord('early', 1, { state: 'executing', value_usd: usd(13), updated_at: 50 }));
      await store.createIntent(intentRecord('held', 1, { state: 'held', value_usd: usd(11), updated_at: 300 }));
      await store.createIntent(intentRecord('failed', 1, { state: 'failed', value_usd: usd(17), updated_at: 300 }));
      await store.createIntent(intentRecord('other', 1, { account_id: 'b', state: 'done', value_usd: usd(19), executed_at: 300 }));
      expect(await store.spentSince('a', 100)).toBe(12n * 10n ** 18n);
      expect(await store.spentSince('a', 0)).toBe(25n * 10n ** 18n);
      expect(await store.spentSince('a', 201)).toBe(0n);
      expect(await store.spentSince('nobody', 0)).toBe(0n);
      await store.transitionIntent('a', 'early', ['executing'], 'failed', { updated_at: 400 });
      await store.transitionIntent('a', 'signed', ['signed'], 'done', { executed_at: 500, updated_at: 500 });
      await store.transitionIntent('a', 'held', ['held'], 'executing', { updated_at: 600 });
      expect(await store.spentSince('a', 0)).toBe(23n * 10n ** 18n);
      expect(await store.spentSince('a', 550)).toBe(11n * 10n ** 18n);
    });

    it('intentsInStates answers the matching intents of every account', async () => {
      for (const id of ['a', 'b']) await store.createAccount(account(id));
      await store.createIntent(intentRecord('a1', 1, { state: 'executing' }));
      await store.createIntent(intentRecord('a2', 2, { state: 'done' }));
      await store.createIntent(intentRecord('b1', 3, { account_id: 'b', state: 'signed' }));
      await store.createIntent(intentRecord('b2', 4, { account_id: 'b', state: 'held' }));
      const found = await store.intentsInStates(['executing', 'signed']);
      expect(found.map((r) => `${r.account_id}/${r.id}`).sort()).toEqual(['a/a1', 'b/b1']);
      expect(await store.intentsInStates(['expired'])).toEqual([]);
    });
  });
}
