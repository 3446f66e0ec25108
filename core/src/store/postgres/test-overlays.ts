// The shared test-key overlays on PostgreSQL (table `test_overlays`, migration 0030): one row
// per account, read when its version moved, rewritten under the row's lock. On the server's
// one pool (or, given a URL, a small one of its own, for tests). A row idle
// longer than the overlay's idle time (24 h) is one no server will read again: writes delete
// such rows, at most once a minute per server, so the table holds only live overlays.

import type { OverlaySnapshot } from '../overlay-accounts';
import { defaultOverlayCaps } from '../overlay-store';
import type { OverlayShare } from '../shared-overlay';
import { type DatabaseSource, useDatabase } from './database';

const parse = (text: string | null) => (text === null ? null : (JSON.parse(text) as OverlaySnapshot));

const PRUNE_EVERY_MS = 60_000;

export function createPostgresOverlayShare({
  idleMs = defaultOverlayCaps.idleMs,
  ...source
}: DatabaseSource & { idleMs?: number }): OverlayShare {
  const { sql, end } = useDatabase(source, 2);
  let lastPrune = 0;
  const prune = async () => {
    if (Date.now() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = Date.now();
    await sql`DELETE FROM test_overlays WHERE updated_at < now() - ${idleMs / 1000} * interval '1 second'`;
  };
  return {
    async read(accountId, version) {
      const [row] = await sql<{ version: string; snapshot: string | null }[]>`
        SELECT version, snapshot FROM test_overlays WHERE account_id = ${accountId} AND version > ${version}`;
      return row ? { version: Number(row.version), snapshot: parse(row.snapshot) } : null;
    },
    async update(accountId, write) {
      return sql
        .begin(async (tx) => {
          await tx`INSERT INTO test_overlays (account_id, version) VALUES (${accountId}, 0) ON CONFLICT (account_id) DO NOTHING`;
          const [row] = await tx<{ version: string; snapshot: string | null }[]>`
          SELECT version, snapshot FROM test_overlays WHERE account_id = ${accountId} FOR UPDATE`;
          const current = { version: Number(row?.version ?? 0), snapshot: parse(row?.snapshot ?? null) };
          const { snapshot, result } = await write(current);
          const version = current.version + 1;
          await tx`UPDATE test_overlays SET version = ${version}, snapshot = ${snapshot && JSON.stringify(snapshot)}, updated_at = now()
          WHERE account_id = ${accountId}`;
          return { version, result };
        })
        .finally(() => prune().catch(() => undefined));
    },
    close: end,
  };
}
