// The suites that matter once more, with every server on PostgreSQL: each server the harness
// starts (in process or as a child) gets a database of its own on this file's throwaway
// cluster (test-database.ts). Platform, wallet, conversation, crash safety (kill -9 in a
// burst of writes, and mid-intent) and surfaces (tokens, acting for, the multiplexed stream).
process.env.PRESENCE_TEST_STORE = 'postgres';

export {}; // a module: the suites are imported with top-level await, after the variable is set

await import('./api.test');
await import('./wallet-intents.test');
await import('./conversation.test');
await import('./crash-burst.test');
await import('./wallet-crash.test');
await import('./surfaces.test');

const { describe, expect, it } = await import('vitest');
const { call, removeDir, startTestServer } = await import('./harness');
const { loadMigrations } = await import('@presence/core/postgres');
const SCHEMA = Math.max(...loadMigrations().map((m) => m.version));
describe('the suites above', () => {
  it('ran their servers on PostgreSQL', async () => {
    const s = await startTestServer();
    try {
      expect((await call(s.url, 'GET', '/v1/health')).json.store).toEqual({ kind: 'postgres', schema: SCHEMA });
    } finally {
      await s.close();
      removeDir(s.dataDir);
    }
  });
});
