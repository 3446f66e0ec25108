// The store contract, part two: idempotency answers, wallets, intents, the thread, standing
// intents and links.
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../src/store/store-port';
import type { StoreHarness } from './fixtures';
import { account, answer, fanOut, intentRecord, link, range, standing, turn, wallet } from './fixtures';
import type { ContractContext } from './store-contract';

export function activityContract(ctx: ContractContext) {
  let h: StoreHarness;
  let store: StorePort;
  beforeEach(() => {
    ({ h, store } = ctx.current());
  });

  ctx.section('idempotency answers', () => {
    it('stores and replays an answer per account; the same key put again answers the newest', async () => {
      expect(await store.getIdempotencyRecord('a', 'k')).toBeNull();
      await store.putIdempotencyRecord('a', answer('k', 1, '{"secret":"prs_live_x"}'));
      expect(await store.getIdempotencyRecord('a', 'k')).toEqual(answer('k', 1, '{"secret":"prs_live_x"}'));
      expect(await store.getIdempotencyRecord('b', 'k')).toBeNull();
      await store.putIdempotencyRecord('a', answer('k', 2, '{"n":2}'));
      expect((await store.getIdempotencyRecord('a', 'k'))?.body).toBe('{"n":2}');
    });

    it('pruneIdempotency drops answers older than the cut-off, across accounts, and answers how many', async () => {
      for (const id of ['a', 'b']) await store.createAccount(account(id));
      await store.putIdempotencyRecord('a', answer('old', 10));
      await store.putIdempotencyRecord('b', answer('old', 20));
      await store.putIdempotencyRecord('a', answer('fresh', 50));
      expect(await store.pruneIdempotency(50)).toBe(2);
      expect(await store.getIdempotencyRecord('a', 'old')).toBeNull();
      expect(await store.getIdempotencyRecord('b', 'old')).toBeNull();
      expect((await store.getIdempotencyRecord('a', 'fresh'))?.created_at).toBe(50);
      expect(await store.pruneIdempotency(50)).toBe(0);
    });
  });

  ctx.section('wallets', () => {
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

  ctx.section('intents', () => {
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

  ctx.section('thread', () => {
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

    it('concurrent appends from several servers get strictly increasing ids with no gap', async () => {
      const appended = await fanOut(await h.peers(4), 10, (s, i) => s.appendThread('a', turn(`q${i}`)));
      expect(appended.map((e) => e.id).sort((x, y) => x - y)).toEqual(range(40));
      const read = await store.readThread('a', { limit: 100 });
      expect(read.map((e) => e.id)).toEqual(range(40));
      for (const e of appended) expect(read[e.id - 1]).toEqual(e);
    });
  });

  ctx.section('standing intents', () => {
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

  ctx.section('links', () => {
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
