// For a file that imports suites again with PRESENCE_TEST_STORE=postgres, its last check: a
// server the harness starts is on PostgreSQL (its health names the store and the schema), so
// the suites above did not quietly run on lowdb.
import { loadMigrations } from '@presence/core/postgres';
import { call, removeDir, startTestServer } from './harness';

/** What health says of the store on a freshly migrated database. */
export const postgresStore = () => ({ kind: 'postgres', schema: Math.max(...loadMigrations().map((m) => m.version)) });

/** The store a server the harness starts now reports on /v1/health. */
export async function storeOfATestServer(): Promise<unknown> {
  const s = await startTestServer();
  try {
    return (await call(s.url, 'GET', '/v1/health')).json.store;
  } finally {
    await s.close();
    removeDir(s.dataDir);
  }
}
