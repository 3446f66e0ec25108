// A throwaway PostgreSQL for one test file, migrated once: started before the file's tests,
// stopped after them. Each test that writes takes a database of its own, copied from the
// migrated one (a template copy is a few milliseconds; migrating again would be a second).
// Not exported from the testing entry: it is our own tests' setup, not part of the contract.
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../scripts/postgres';
import { migrate } from '../src/store/postgres/migrate';

export type MigratedPostgres = {
  /** The migrated database every test of the file shares (nothing may be connected to it while `fresh` copies it). */
  readonly url: string;
  /** A new database, a copy of the migrated one; answers its URL. */
  fresh(): Promise<string>;
  /** An empty database on the same cluster, not migrated; answers its URL. */
  empty(): Promise<string>;
};

export function useMigratedPostgres(): MigratedPostgres {
  let pg: ThrowawayPostgres | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
    await migrate(pg.url);
  });
  afterAll(async () => {
    await pg?.stop();
  });
  const started = () => {
    if (!pg) throw new Error('PostgreSQL starts in beforeAll: use it from a test or a hook');
    return pg;
  };
  return {
    get url() {
      return started().url;
    },
    fresh: () => {
      const p = started();
      return p.createDatabase({ template: new URL(p.url).pathname.slice(1) });
    },
    empty: () => started().createDatabase(),
  };
}
