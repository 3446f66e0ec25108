// Opens the store the configuration names: PostgreSQL when PRESENCE_DATABASE_URL is set
// (pending migrations applied first, under the migration advisory lock), else the embedded
// store in the data directory. A database that cannot be reached stops the start with one
// line naming where it was looked for (host, port, database: never the password); a database
// migrated by a newer Presence, or a data directory already imported into one, is refused.
//
// On PostgreSQL this opens the server's one pool (PRESENCE_DATABASE_POOL connections): the
// store, the cluster messaging, the locks, leadership and the deployment book all run on it
// (see docs/operations.md for the arithmetic against max_connections).
import { type EmbeddedStore, isPresenceError, type Keystore, redactMessage, type SharedStore } from '@presence/core';
import { createLowdbStore } from '@presence/core/lowdb';
import { createPostgresStore, type Database, loadMigrations, migrationStatus, openDatabase } from '@presence/core/postgres';
import type { StoreInfo } from '@presence/protocol';
import type { Config } from './config';
import { refuseImported } from './imported-marker';
import { refuseNewerSchema } from './schema-check';

export type OpenedStore = { info: StoreInfo } & (
  | { store: EmbeddedStore; database: null }
  | {
      store: SharedStore;
      /** The server's pool, on PostgreSQL: ended by the caller, after everything that uses it. */
      database: Database;
    }
);

/** host:port/database of a database URL, for messages: the credentials stay out. */
export function databaseLabel(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

/** One line for a failure to reach or migrate the database. */
export function databaseFailure(url: string, e: unknown): Error {
  const cause = isPresenceError(e) ? e.cause : e;
  // The driver's words, as a log line would carry them: a driver may quote its connection string.
  const why = redactMessage(cause instanceof Error ? cause.message : String(cause));
  return new Error(`could not open the database at ${databaseLabel(url)} (PRESENCE_DATABASE_URL): ${why}`, { cause: e });
}

export async function openStore(config: Config, keystore: Keystore): Promise<OpenedStore> {
  const url = config.PRESENCE_DATABASE_URL;
  if (!url) {
    refuseImported(config.PRESENCE_DATA_DIR);
    // An answered write is on disk (temp file, rename and directory fsynced).
    return {
      store: await createLowdbStore({ dataDir: config.PRESENCE_DATA_DIR, fsync: true, keystore }),
      info: { kind: 'lowdb' },
      database: null,
    };
  }
  const sql = openDatabase(url, { max: config.PRESENCE_DATABASE_POOL });
  const fail = async (e: unknown) => {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    return e;
  };
  // The pool opens its first connection here: a wrong URL, a refusal or bad credentials stop
  // the start now, in one line; a schema newer than this server knows is refused before
  // anything is migrated.
  const before = await (async () => {
    await sql`SELECT 1`;
    return migrationStatus(sql);
  })().catch(async (e: unknown) => {
    throw databaseFailure(url, await fail(e));
  });
  try {
    refuseNewerSchema(
      before,
      loadMigrations().map((m) => m.version),
      databaseLabel(url),
    );
  } catch (e) {
    throw await fail(e);
  }
  try {
    const store = await createPostgresStore({ sql, keystore });
    const { applied } = await migrationStatus(sql);
    return { store, info: { kind: 'postgres', schema: Math.max(0, ...applied.map((a) => a.version)) }, database: sql };
  } catch (e) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw databaseFailure(url, e);
  }
}
