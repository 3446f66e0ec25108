// Opens the store the configuration names: PostgreSQL when PRESENCE_DATABASE_URL is set
// (pending migrations applied first, under the migration advisory lock), else the embedded
// store in the data directory. A database that cannot be reached stops the start with one
// line naming where it was looked for (host, port, database: never the password); a database
// migrated by a newer Presence, or a data directory already imported into one, is refused.
import { isPresenceError, type Keystore, type StorePort } from '@presence/core';
import { createLowdbStore } from '@presence/core/lowdb';
import { createPostgresStore, loadMigrations, migrationStatus } from '@presence/core/postgres';
import type { StoreInfo } from '@presence/protocol';
import type { Config } from './config';
import { refuseImported } from './imported-marker';
import { refuseNewerSchema } from './schema-check';

export type OpenedStore = { store: StorePort; info: StoreInfo };

/** host:port/database of a database URL, for messages: the credentials stay out. */
export function databaseLabel(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

/** One line for a failure to reach or migrate the database. */
export function databaseFailure(url: string, e: unknown): Error {
  const cause = isPresenceError(e) ? e.cause : e;
  const why = cause instanceof Error ? cause.message : String(cause);
  return new Error(`could not open the database at ${databaseLabel(url)} (PRESENCE_DATABASE_URL): ${why}`, { cause: e });
}

export async function openStore(config: Config, keystore: Keystore, { max }: { max?: number } = {}): Promise<OpenedStore> {
  const url = config.PRESENCE_DATABASE_URL;
  if (!url) {
    refuseImported(config.PRESENCE_DATA_DIR);
    // An answered write is on disk (temp file, rename and directory fsynced).
    return { store: await createLowdbStore({ dataDir: config.PRESENCE_DATA_DIR, fsync: true, keystore }), info: { kind: 'lowdb' } };
  }
  const before = await migrationStatus(url).catch((e: unknown) => {
    throw databaseFailure(url, e);
  });
  refuseNewerSchema(
    before,
    loadMigrations().map((m) => m.version),
    databaseLabel(url),
  );
  try {
    const store = await createPostgresStore({ url, keystore, ...(max ? { max } : {}) });
    const { applied } = await migrationStatus(url).catch(async (e: unknown) => {
      await store.close();
      throw e;
    });
    return { store, info: { kind: 'postgres', schema: Math.max(0, ...applied.map((a) => a.version)) } };
  } catch (e) {
    throw databaseFailure(url, e);
  }
}
