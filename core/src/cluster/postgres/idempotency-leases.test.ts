// The leases contract on a real PostgreSQL: each peer a handle with its own pool, as servers hold them.
import { describeLeasesContract } from '../../../testing/leases-contract';
import { useMigratedPostgres } from '../../../testing/migrated-postgres';
import { createPostgresIdempotencyLeases } from './idempotency-leases';

const pg = useMigratedPostgres();

describeLeasesContract('PostgreSQL', async () => {
  const url = await pg.fresh();
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
