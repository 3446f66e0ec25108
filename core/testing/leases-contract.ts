// The idempotency leases port's contract, run against every implementation (memory in
// idempotency-leases.test.ts, PostgreSQL in cluster/postgres/idempotency-leases.test.ts).
// "Peers" are handles as other servers would hold them: separate pools on PostgreSQL; the one
// map in memory, which serves one process.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IdempotencyLeases } from '../src/idempotency/idempotency-leases';

export type LeasesHarness = {
  /** `n` handles on the same leases, as `n` servers would hold them. */
  peers(n: number): Promise<IdempotencyLeases[]>;
  close(): Promise<void>;
};

export function describeLeasesContract(name: string, open: () => Promise<LeasesHarness>) {
  describe(`idempotency leases contract: ${name}`, () => {
    let h: LeasesHarness;
    beforeEach(async () => {
      h = await open();
    });
    afterEach(async () => {
      await h.close();
    });

    it("a lease on a key is one owner's until released or expired, across peers", async () => {
      const [p, q] = (await h.peers(2)) as [IdempotencyLeases, IdempotencyLeases];
      const mine = { owner: 'A', fingerprint: 'f1', expires_at: 1_000 };
      expect(await p.claim('a', 'k', mine, 0)).toEqual(mine);
      // Another owner sees the holder's lease while it lasts (and can learn its fingerprint).
      const theirs = { owner: 'B', fingerprint: 'f2', expires_at: 2_000 };
      expect(await q.claim('a', 'k', theirs, 500)).toEqual(mine);
      // Other accounts and keys are not affected.
      expect(await q.claim('b', 'k', theirs, 500)).toEqual(theirs);
      // The owner renews; the other cannot.
      expect(await p.renew('a', 'k', 'A', 1_500)).toBe(true);
      expect(await q.renew('a', 'k', 'B', 9_000)).toBe(false);
      expect(await q.claim('a', 'k', theirs, 1_200)).toMatchObject({ owner: 'A', expires_at: 1_500 });
      // Expired: taken over; the old owner can neither renew nor release it any more.
      expect(await q.claim('a', 'k', theirs, 1_500)).toEqual(theirs);
      expect(await p.renew('a', 'k', 'A', 3_000)).toBe(false);
      await p.release('a', 'k', 'A');
      expect(await p.claim('a', 'k', mine, 1_600)).toEqual(theirs);
      // Released by its owner: free at once.
      await q.release('a', 'k', 'B');
      expect(await p.claim('a', 'k', mine, 1_600)).toEqual(mine);
    });

    it('racing claims on one key: exactly one owner gets it', async () => {
      const peers = await h.peers(4);
      const got = await Promise.all(peers.map((s, i) => s.claim('a', 'race', { owner: `o${i}`, fingerprint: 'f', expires_at: 10_000 }, 0)));
      expect(new Set(got.map((c) => c.owner)).size).toBe(1);
    });

    it('prune drops leases that ended before the cut-off, and only those', async () => {
      const [p] = (await h.peers(1)) as [IdempotencyLeases];
      await p.claim('a', 'old', { owner: 'A', fingerprint: 'f', expires_at: 100 }, 0);
      await p.claim('a', 'new', { owner: 'A', fingerprint: 'f', expires_at: 300 }, 0);
      await p.prune(200);
      // A pruned lease is gone (another owner gets it even at a time it would still hold);
      // the other still holds.
      expect(await p.claim('a', 'old', { owner: 'B', fingerprint: 'g', expires_at: 900 }, 50)).toMatchObject({ owner: 'B' });
      expect(await p.claim('a', 'new', { owner: 'B', fingerprint: 'g', expires_at: 900 }, 50)).toMatchObject({ owner: 'A' });
    });
  });
}
