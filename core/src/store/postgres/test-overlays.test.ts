// The shared test-key overlays on a real PostgreSQL: two handles on one database stand for
// two servers. A write through one is read through the other once (then only when it moved
// again), writes to one account take turns under the row's lock, and rows idle past the
// overlay's idle time are deleted by a later write.
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { useMigratedPostgres } from '../../../testing/migrated-postgres';
import type { OverlaySnapshot } from '../overlay-accounts';
import { createPostgresOverlayShare } from './test-overlays';

const pg = useMigratedPostgres();

/** A database of its own for each test, migrated (a copy of the template). */
const freshDatabase = () => pg.fresh();

const snapshot = (lastWrite: number): OverlaySnapshot => ({
  lastWrite,
  latestEventId: 0,
  records: { accounts: [], keys: [], memory: [], wallets: [], standing: [] },
  thread: [],
  events: [],
  answers: [],
  intents: [],
  links: [],
});

describe('test_overlays', () => {
  it('hands a write through one server to the other, once per change; concurrent writes take turns', async () => {
    const url = await freshDatabase();
    const [a, b] = [createPostgresOverlayShare({ url }), createPostgresOverlayShare({ url })];
    try {
      const first = await a.update('acct-1', async (current) => {
        expect(current).toEqual({ version: 0, snapshot: null });
        return { snapshot: snapshot(1), result: 'ok' };
      });
      expect(first).toEqual({ version: 1, result: 'ok' });
      expect(await b.read('acct-1', 0)).toEqual({ version: 1, snapshot: snapshot(1) });
      expect(await b.read('acct-1', 1)).toBeNull();
      // Ten writes from both at once: each sees the one before it, none is lost.
      const seen = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? a : b).update('acct-1', async (current) => {
            const n = current.snapshot?.lastWrite ?? 0;
            return { snapshot: snapshot(n + 1), result: n };
          }),
        ),
      );
      expect(seen.map((s) => s.result).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect((await a.read('acct-1', 0))?.snapshot?.lastWrite).toBe(11);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a write deletes the rows idle past the idle time', async () => {
    const url = await freshDatabase();
    const share = createPostgresOverlayShare({ url, idleMs: 3_600_000 });
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      await share.update('acct-old', async () => ({ snapshot: snapshot(1), result: null }));
      await sql`UPDATE test_overlays SET updated_at = now() - interval '2 hours' WHERE account_id = 'acct-old'`;
      // The handle's first write pruned before the row aged; a new handle prunes on its first.
      const other = createPostgresOverlayShare({ url, idleMs: 3_600_000 });
      await other.update('acct-new', async () => ({ snapshot: snapshot(1), result: null }));
      await other.close();
      const rows = await sql<{ account_id: string }[]>`SELECT account_id FROM test_overlays ORDER BY account_id`;
      expect(rows.map((r) => r.account_id)).toEqual(['acct-new']);
    } finally {
      await share.close();
      await sql.end();
    }
  });
});
