// The red-team cases (red-team.test.ts) once more, with the server on PostgreSQL.
process.env.PRESENCE_TEST_STORE = 'postgres';

export {}; // a module: the suite is imported with top-level await, after the variable is set

await import('./red-team.test');
await import('./red-team-connections.test');
await import('./red-team-addresses.test');
await import('./red-team-master-key.test');
await import('./red-team-scopes.test');
