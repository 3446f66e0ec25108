// The per-key request window on a real PostgreSQL, two cluster handles standing for two
// servers: one server alone is exact (racing hits included); what each admitted reaches the
// table at its next sync (or the one after, when a write fails) and the other then counts it; limits above EXACT_MAX keep buckets;
// keys idle for a window leave the server's memory.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { useMigratedPostgres } from '../../../testing/migrated-postgres';
import { createManualClock } from '../../clock/clock';
import { createPostgresCluster, EXACT_MAX, type PostgresCluster } from './cluster';
import type { RequestRates } from './request-rates';

const pg = useMigratedPostgres();

async function twoServers(opts: { limit: number; windowMs: number }) {
  const clock = createManualClock(1_000_000);
  const url = await pg.fresh();
  // No timer: the tests' own syncs say when counts are written (and so what each view holds).
  const handles: PostgresCluster[] = [
    await createPostgresCluster({ url, clock, max: 2, requestSyncMs: 3_600_000 }),
    await createPostgresCluster({ url, clock, max: 2, requestSyncMs: 3_600_000 }),
  ];
  const [p, q] = handles.map((h) => h.requestLimiter(opts) as RequestRates) as [RequestRates, RequestRates];
  const probe = postgres(url, { max: 1, onnotice: () => undefined });
  return {
    url,
    clock,
    p,
    q,
    probe,
    close: async () => {
      await Promise.all(handles.map((h) => h.close()));
      await probe.end();
    },
  };
}

describe('request windows on PostgreSQL', () => {
  it('one server alone is exact, racing hits included, and writes nothing until it syncs', async () => {
    const { clock, p, probe, close } = await twoServers({ limit: 4, windowMs: 60_000 });
    try {
      const racing = await Promise.all(Array.from({ length: 10 }, () => p.hit('k1')));
      expect(racing.filter((d) => d.allowed)).toHaveLength(4);
      expect(racing.map((d) => d.remaining).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
      expect(await probe`SELECT 1 FROM rate_logs WHERE id = 'k1'`).toHaveLength(0);
      await p.sync();
      const [row] = await probe<{ times: number[] }[]>`SELECT times FROM rate_logs WHERE scope = 'key' AND id = 'k1'`;
      expect(row?.times).toHaveLength(4);
      // The oldest leaves the window: one more passes.
      clock.advance(60_000);
      expect((await p.hit('k1')).allowed).toBe(true);
    } finally {
      await close();
    }
  });

  it('a write that fails gives its counts back: they still count here and reach the table at the next sync', async () => {
    const { clock, p, probe, close } = await twoServers({ limit: 5, windowMs: 60_000 });
    try {
      // Two in the same millisecond, one later: the table keeps every time, repeats included.
      await p.hit('k2');
      await p.hit('k2');
      clock.advance(1);
      await p.hit('k2');
      await probe`ALTER TABLE rate_logs RENAME TO rate_logs_away`;
      await expect(p.sync()).rejects.toThrow();
      await probe`ALTER TABLE rate_logs_away RENAME TO rate_logs`;
      expect((await p.peek('k2')).remaining).toBe(2);
      await p.sync();
      const [row] = await probe<{ times: number[] }[]>`SELECT times FROM rate_logs WHERE scope = 'key' AND id = 'k2'`;
      expect(row?.times.map(Number)).toEqual([1_000_000, 1_000_000, 1_000_001]);
      expect((await p.hit('k2')).remaining).toBe(1);
    } finally {
      await close();
    }
  });

  it('what one server admitted counts on the other once synced; a lagging view overshoots by what it admitted meanwhile', async () => {
    const { url, clock, p, q, close } = await twoServers({ limit: 4, windowMs: 60_000 });
    try {
      const step = async (l: RequestRates) => {
        const d = await l.hit('k');
        await l.sync();
        clock.advance(1_000);
        return [d.allowed, d.remaining];
      };
      // q reads the window on first sight; each sync answers the row as it stands, so a
      // server's view takes in the other's requests at its own next sync (p's third request
      // is decided on a view that has not yet seen q's second, and q's second on one without
      // p's third).
      expect([await step(p), await step(q), await step(p), await step(q)]).toEqual([
        [true, 3],
        [true, 2],
        [true, 2],
        [true, 1],
      ]);
      expect((await q.hit('k')).allowed).toBe(false);
      // p last heard of three: its next request passes on that view, and its sync corrects it.
      expect(await step(p)).toEqual([true, 0]);
      expect((await p.hit('k')).allowed).toBe(false);
      expect((await p.peek('other')).remaining).toBe(4); // ids are apart
      // A server that never saw the key reads its window on first sight.
      const third = await createPostgresCluster({ url, clock, max: 1 });
      try {
        expect((await third.requestLimiter({ limit: 4, windowMs: 60_000 }).peek('k')).allowed).toBe(false);
      } finally {
        await third.close();
      }
    } finally {
      await close();
    }
  });

  it(`above ${EXACT_MAX} a window is two buckets, summed over both servers, the previous one weighted`, async () => {
    const limit = EXACT_MAX + 1_000;
    const { clock, p, q, close } = await twoServers({ limit, windowMs: 1_000 });
    try {
      clock.set(10_000_000); // the start of a bucket
      await Promise.all(Array.from({ length: limit }, (_, i) => (i % 2 ? p : q).hit('k')));
      await p.sync();
      await q.sync(); // q's view now holds both servers' counts
      const refused = await q.hit('k');
      expect(refused, JSON.stringify(refused)).toMatchObject({ allowed: false });
      clock.advance(1_500); // half of the previous bucket still counts
      const d = await q.peek('k');
      expect(d.remaining).toBe(limit - Math.ceil(limit / 2));
      expect((await q.hit('k')).allowed).toBe(true);
    } finally {
      await close();
    }
  });
});
