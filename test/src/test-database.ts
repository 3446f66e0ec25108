// Servers on PostgreSQL for the end-to-end tests: with PRESENCE_TEST_STORE=postgres (or when a
// test asks), every server the harness starts gets a database of its own on one throwaway
// cluster per test file, started on first use and stopped after the file's last test. A
// database belongs to a data directory, so a restart (in process, or a respawned child after
// kill -9) finds the same records; each database copies one migrated template, which is
// several times faster than migrating each.
import { randomBytes } from 'node:crypto';
import { migrate } from '@presence/core/postgres';
import { startPostgres, type ThrowawayPostgres } from '../../scripts/postgres';

/** Whether this run puts servers on PostgreSQL (`PRESENCE_TEST_STORE=postgres`). */
export const onPostgres = () => process.env.PRESENCE_TEST_STORE === 'postgres';

let cluster: Promise<{ pg: ThrowawayPostgres; template: string }> | null = null;
const byDataDir = new Map<string, Promise<Record<string, string>>>();

/** Stops this file's cluster, if one was started (vitest.setup.ts runs it after each test file). */
export async function stopTestCluster(): Promise<void> {
  const started = cluster;
  cluster = null;
  byDataDir.clear();
  if (started) await (await started).pg.stop();
}

/** The shared cluster of this test file, with its migrated template database. */
export function testCluster(): Promise<{ pg: ThrowawayPostgres; template: string }> {
  cluster ??= (async () => {
    const pg = await startPostgres();
    await migrate(pg.url);
    return { pg, template: new URL(pg.url).pathname.slice(1) };
  })();
  return cluster;
}

/** A fresh database (migrated, or `empty`), as the variables a server needs to run on it. */
export async function freshDatabaseEnv({ empty = false } = {}): Promise<Record<string, string>> {
  const { pg, template } = await testCluster();
  const url = await pg.createDatabase(empty ? {} : { template });
  return { PRESENCE_DATABASE_URL: url, PRESENCE_MASTER_KEY: randomBytes(32).toString('hex') };
}

/** The database of this data directory (made on first ask), or nothing when the run is on lowdb. */
export function databaseEnvFor(dataDir: string): Promise<Record<string, string>> {
  if (!onPostgres()) return Promise.resolve({});
  let env = byDataDir.get(dataDir);
  if (!env) {
    env = freshDatabaseEnv();
    byDataDir.set(dataDir, env);
  }
  return env;
}
