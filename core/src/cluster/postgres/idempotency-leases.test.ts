// The leases contract on a real PostgreSQL: each peer a handle with its own pool, as servers hold them.
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../../../scripts/postgres';
import { describeLeasesContract } from '../../../testing/leases-contract';
import { migrate } from '../../store/postgres/migrate';
import { createPostgresIdempotencyLeases } from './idempotency-leases';

let pg: ThrowawayPostgres;
beforeAll(async () => {
  pg = await startPostgres();
  await migrate(pg.url);
});
afterAll(async () => {
  await pg?.stop();
});

describeLeasesContract('PostgreSQL', async () => {
  const url = await pg.createDatabase({ template: new URL(pg.url).pathname.slice(1) });
  const handles: ReturnType<typeof createPostgresIdempotencyLeases>[] = [];
  return {
    async peers(n) {
      for (let i = 0; i < n; i++) handles.push(createPostgresIdempotencyLeases({ url }));
      return handles.slice(-n);
    },
    close: async () => {
      await Promise.all(handles.map((l) => l.close()));
    },
  };
});
