// The red-team cases (red-team*.test.ts; case 5 in logging.test.ts) once more, with the
// servers on PostgreSQL, and a check that they really were.
process.env.PRESENCE_TEST_STORE = 'postgres';

export {}; // a module: the suite is imported with top-level await, after the variable is set

await import('./red-team.test');
await import('./red-team-connections.test');
await import('./red-team-addresses.test');
await import('./red-team-master-key.test');
await import('./red-team-scopes.test');
await import('./logging.test');
await import('./red-team-service-log.test');

const { describe, expect, it } = await import('vitest');
const { postgresStore, storeOfATestServer } = await import('./ran-on-postgres');
describe('the suites above', () => {
  it('ran their servers on PostgreSQL', async () => expect(await storeOfATestServer()).toEqual(postgresStore()));
});
