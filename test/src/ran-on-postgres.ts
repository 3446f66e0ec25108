// The last check of a file that imports suites again with PRESENCE_TEST_STORE=postgres: a
// server the harness starts is on PostgreSQL (its health names the store and the schema), so
// the suites above did not quietly run on lowdb.
import { loadMigrations } from '@presence/core/postgres';
import { describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer } from './harness';

export function checkRanOnPostgres() {
  const schema = Math.max(...loadMigrations().map((m) => m.version));
  describe('the suites above', () => {
    it('ran their servers on PostgreSQL', async () => {
      const s = await startTestServer();
      try {
        expect((await call(s.url, 'GET', '/v1/health')).json.store).toEqual({ kind: 'postgres', schema });
      } finally {
        await s.close();
        removeDir(s.dataDir);
      }
    });
  });
}
