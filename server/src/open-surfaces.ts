// Opens the stores beside the main one (surfaces, webhooks, passkeys): on PostgreSQL their
// tables in the same database (migrations 0010, 0050 and 0045, applied with the others), on the
// embedded store their logs under data/surfaces/, data/webhooks/ and data/passkeys/ in the same
// data directory.
import type { PasskeyStorePort, StorePort, SurfaceStorePort, WebhookStorePort } from '@presence/core';
import { createLowdbPasskeyStore, createLowdbSurfaceStore, createLowdbWebhookStore } from '@presence/core/lowdb';
import { createPostgresPasskeyStore, createPostgresSurfaceStore, createPostgresWebhookStore, type Database } from '@presence/core/postgres';
import type { Config } from './config';
import { databaseFailure } from './open-store';

type Where = Pick<Config, 'PRESENCE_DATABASE_URL' | 'PRESENCE_DATA_DIR'>;
type PostgresTarget = { sql: Database } | { url: string; max?: number };

/**
 * One side store, wherever the configuration keeps the main one: in the data directory, or on
 * PostgreSQL through the server's one pool (without it, a pool of its own of `ownPool`
 * connections: the CLI), a database that cannot be reached said in one line.
 */
async function openSide<T>(
  config: Where,
  database: Database | null | undefined,
  open: { lowdb: (dataDir: string) => Promise<T>; postgres: (target: PostgresTarget) => Promise<T>; ownPool?: number },
): Promise<T> {
  const url = config.PRESENCE_DATABASE_URL;
  if (!url) return open.lowdb(config.PRESENCE_DATA_DIR);
  try {
    return await open.postgres(database ? { sql: database } : { url, ...(open.ownPool ? { max: open.ownPool } : {}) });
  } catch (e) {
    throw databaseFailure(url, e);
  }
}

/** `database`: the server's one pool, on PostgreSQL (without it, a small pool of its own: the CLI). */
export const openSurfaceStore = (config: Where, store: StorePort, database?: Database | null): Promise<SurfaceStorePort> =>
  openSide(config, database, {
    lowdb: (dataDir) => createLowdbSurfaceStore({ dataDir, events: store }),
    postgres: createPostgresSurfaceStore,
    ownPool: 2,
  });

/** The webhooks store, as the surfaces one is opened. */
export const openWebhookStore = (config: Where, database?: Database | null): Promise<WebhookStorePort> =>
  openSide(config, database, {
    lowdb: (dataDir) => createLowdbWebhookStore({ dataDir }),
    postgres: createPostgresWebhookStore,
    ownPool: 2,
  });

/** The passkeys store: tables of migration 0045 on PostgreSQL, logs under data/passkeys/ embedded. */
export const openPasskeyStore = (config: Where, database?: Database | null): Promise<PasskeyStorePort> =>
  openSide(config, database, { lowdb: (dataDir) => createLowdbPasskeyStore({ dataDir }), postgres: createPostgresPasskeyStore });
