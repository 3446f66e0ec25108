// The store contract for Idempotency-Key answers: stored and replayed per account, pruned across
// accounts. One family's section of the port; describeStoreContract (../store-contract.ts) runs
// every family's, and an adapter may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { account, answer } from '../fixtures';
import type { ContractContext } from './context';

export function idempotencyContract(ctx: ContractContext) {
  ctx.section('idempotency answers', () => {
    let store: StorePort;
    beforeEach(() => {
      ({ store } = ctx.current());
    });

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
}
