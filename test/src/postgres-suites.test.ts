// The suites that matter once more, with every server on PostgreSQL: each server the harness
// starts (in process or as a child) gets a database of its own on this file's throwaway
// cluster (test-database.ts). Platform, wallet, conversation, crash safety (kill -9 in a
// burst of writes, and mid-intent), surfaces (tokens, acting for, the multiplexed stream) and
// amounts at their bounds.
process.env.PRESENCE_TEST_STORE = 'postgres';

export {}; // a module: the suites are imported with top-level await, after the variable is set

await import('./api.test');
await import('./wallet-intents.test');
await import('./conversation.test');
await import('./crash-burst.test');
await import('./wallet-crash.test');
await import('./surfaces.test');
await import('./amounts.test');
await import('./webhooks-restart.test');

const { describe, expect, it } = await import('vitest');
const { postgresStore, storeOfATestServer } = await import('./ran-on-postgres');
describe('the suites above', () => {
  it('ran their servers on PostgreSQL', async () => expect(await storeOfATestServer()).toEqual(postgresStore()));
});
