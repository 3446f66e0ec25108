// The store contract against PostgreSQL (a throwaway cluster from scripts/postgres.ts, a fresh
// database per test; "several servers" are separate stores with their own connection pools),
// plus what only this adapter has: migrations under a lock, answers sealed in the table,
// database failures as 503 store_unavailable, and the daily-cap sum read from its index.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import postgres from 'postgres';
import { beforeEach, describe, expect, it } from 'vitest';
import { describeDueWorkContract } from '../../../testing/due-work-contract';
import { intentRecord } from '../../../testing/fixtures';
import { describeStoreContract, type OpenStoreHarness } from '../../../testing/index';
import { useMigratedPostgres } from '../../../testing/migrated-postgres';
import { isPresenceError } from '../../errors/presence-error';
import { createKeystore } from '../../keystore/keystore';
import type { StorePort } from '../store-port';
import { loadMigrations, migrate, migrationStatus } from './migrate';
import { createPostgresStore } from './postgres-store';

const pg = useMigratedPostgres();

const postgresHarness: OpenStoreHarness = async (keystore) => {
  const url = await pg.fresh();
  let store = await createPostgresStore({ url, keystore });
  let peers: StorePort[] = [];
  const closeAll = async () => {
    await Promise.all([store, ...peers].map((s) => s.close()));
    peers = [];
  };
  return {
    store,
    async peers(n) {
      const more = await Promise.all(Array.from({ length: n }, () => createPostgresStore({ url, keystore, max: 3, migrate: false })));
      peers.push(...more);
      return more;
    },
    async reopen() {
      await closeAll();
      store = await createPostgresStore({ url, keystore });
      return store;
    },
    close: closeAll,
  };
};
describeStoreContract('postgres', postgresHarness);
describeDueWorkContract('postgres', postgresHarness);

describe('postgres store', () => {
  const keystore = createKeystore(randomBytes(32));
  let url: string;
  beforeEach(async () => {
    url = await pg.empty();
  });

  /** A plain connection for looking at what the adapter wrote. */
  async function inspect<T>(look: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      return await look(sql);
    } finally {
      await sql.end();
    }
  }

  describe('migrations', () => {
    it('status lists every shipped migration as pending, migrate applies them once, status then shows them applied', async () => {
      const shipped = loadMigrations().map((m) => m.version);
      expect(shipped[0]).toBe(1);
      expect(await migrationStatus(url)).toEqual({
        applied: [],
        pending: loadMigrations().map(({ version, name }) => ({ version, name })),
        unknown: [],
      });
      expect(await migrate(url)).toEqual(shipped);
      expect(await migrate(url)).toEqual([]);
      const status = await migrationStatus(url);
      expect(status.pending).toEqual([]);
      expect(status.applied.map((a) => a.version)).toEqual(shipped);
    });

    it('servers starting together apply each migration exactly once', async () => {
      const runs = await Promise.all(Array.from({ length: 4 }, () => migrate(url)));
      expect(runs.flat().sort((a, b) => a - b)).toEqual(loadMigrations().map((m) => m.version));
      const stores = await Promise.all(Array.from({ length: 3 }, () => createPostgresStore({ url, keystore, max: 2 })));
      await Promise.all(stores.map((s) => s.close()));
      expect((await migrationStatus(url)).applied).toHaveLength(loadMigrations().length);
    });

    it('refuses to go on when an applied migration was changed afterwards', async () => {
      await migrate(url);
      await inspect((sql) => sql`UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1`);
      await expect(migrate(url)).rejects.toThrow(/changed after it was applied/);
      await expect(migrationStatus(url)).rejects.toThrow(/changed after it was applied/);
    });

    it('reports versions applied by a newer Presence as unknown', async () => {
      await migrate(url);
      await inspect((sql) => sql`INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'future', 'x')`);
      expect((await migrationStatus(url)).unknown).toEqual([9999]);
    });
  });

  it('keeps Idempotency-Key answers sealed in the table, and refuses to keep them without a keystore', async () => {
    const store = await createPostgresStore({ url, keystore });
    const secret = 'prs_live_0123456789abcdef0123456789abcdef01234567';
    const record = { key: 'k', fingerprint: 'fp', status: 201, headers: {}, body: JSON.stringify({ secret }), created_at: 1 };
    await store.putIdempotencyRecord('a', record);
    const raw = await inspect((sql) => sql`SELECT record::text AS text FROM idempotency`);
    expect(raw[0]?.text).not.toContain('prs_live_');
    expect(await store.getIdempotencyRecord('a', 'k')).toEqual(record);
    await store.close();

    const bare = await createPostgresStore({ url });
    await expect(bare.putIdempotencyRecord('a', record)).rejects.toThrow(/keystore/);
    await bare.close();
  });

  describe('database failures', () => {
    it('an unreachable database is 503 store_unavailable, at start and on every operation', async () => {
      const port = await new Promise<number>((resolve) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const { port } = s.address() as { port: number };
          s.close(() => resolve(port));
        });
      });
      const nowhere = `postgres://postgres@127.0.0.1:${port}/presence`;
      const atStart = await createPostgresStore({ url: nowhere }).catch((e: unknown) => e);
      expect(isPresenceError(atStart) && [atStart.type, atStart.status]).toEqual(['store_unavailable', 503]);

      const store = await createPostgresStore({ url: nowhere, migrate: false });
      for (const op of [() => store.getAccount('a'), () => store.appendEvent('a', { type: 'memory', data: {}, at: 1 })]) {
        const e = await op().catch((err: unknown) => err);
        expect(isPresenceError(e) && [e.type, e.status, e.retryAfter]).toEqual(['store_unavailable', 503, 1]);
      }
      await store.close();
    });

    it('a database that goes away while serving answers store_unavailable; a caller’s own refusal stays what it was', async () => {
      const store = await createPostgresStore({ url, keystore });
      const account = { id: 'a', name: 'a', created_at: '', presence: { name: 'p', model: 'local', preferences: {} }, policy: null };
      await store.createAccount(account);
      const duplicate = await store.createAccount(account).catch((e: unknown) => e);
      // A duplicate is the caller's conflict, never mistaken for the database being away.
      expect(duplicate).toMatchObject({ type: 'conflict' });
      expect(String((duplicate as Error).message)).toMatch(/exists/);

      const admin = postgres(url.replace(/\/[^/]+$/, '/postgres'), { max: 1, onnotice: () => undefined });
      await admin.unsafe(`DROP DATABASE "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
      await admin.end();
      const e = await store.getAccount('a').catch((err: unknown) => err);
      expect(isPresenceError(e) && e.type).toBe('store_unavailable');
      await store.close();
    });
  });

  it('answers the daily-cap sum from its partial index (no scan of the account’s history)', async () => {
    const store = await createPostgresStore({ url, keystore, max: 4 });
    const day = 86_400_000;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.createIntent(intentRecord(`in_${i}`, i, { state: i % 2 ? 'done' : 'failed', value_usd: '1', executed_at: (i % 4) * day })),
      ),
    );
    expect(await store.spentSince('a', 2 * day)).toBe(10n);
    const plan = await inspect(async (sql) => {
      // Rules the sequential scan out: what remains shows whether the index can serve the query.
      await sql`SET enable_seqscan = off`;
      const rows = await sql`EXPLAIN SELECT COALESCE(sum(value_usd), 0)::text AS total FROM intents
        WHERE account_id = 'a' AND state IN ('executing', 'signed', 'done') AND spent_at >= ${2 * day}`;
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('intents_spend');
    expect(plan).not.toContain('Seq Scan');
    await store.close();
  });
});
