// Opens the stores beside the main one (surfaces, webhooks, passkeys): on PostgreSQL their
// tables in the same database (migrations 0010, 0050 and 0045, applied with the others), on the
// embedded store their logs under data/surfaces/, data/webhooks/ and data/passkeys/ in the same
// data directory.
import type { PasskeyStorePort, StorePort, SurfaceStorePort, WebhookStorePort } from '@presence/core';
import { createLowdbPasskeyStore, createLowdbSurfaceStore, createLowdbWebhookStore } from '@presence/core/lowdb';
import { createPostgresPasskeyStore, createPostgresSurfaceStore, createPostgresWebhookStore, type Database } from '@presence/core/postgres';
import type { Config } from './config';
import { databaseFailure } from './open-store';

/** `database`: the server's one pool, on PostgreSQL (without it, a small pool of its own: the CLI). */
export async function openSurfaceStore(
  config: Pick<Config, 'PRESENCE_DATABASE_URL' | 'PRESENCE_DATA_DIR'>,
  store: StorePort,
  database?: Database | null,
): Promise<SurfaceStorePort> {
  const url = config.PRESENCE_DATABASE_URL;
  if (!url) return createLowdbSurfaceStore({ dataDir: config.PRESENCE_DATA_DIR, events: store });
  try {
    return await createPostgresSurfaceStore(database ? { sql: database } : { url, max: 2 });
  } catch (e) {
    throw databaseFailure(url, e);
  }
}

/** The webhooks store, as the surfaces one is opened. */
export async function openWebhookStore(
  config: Pick<Config, 'PRESENCE_DATABASE_URL' | 'PRESENCE_DATA_DIR'>,
  database?: Database | null,
): Promise<WebhookStorePort> {
  const url = config.PRESENCE_DATABASE_URL;
  if (!url) return createLowdbWebhookStore({ dataDir: config.PRESENCE_DATA_DIR });
  try {
    return await createPostgresWebhookStore(database ? { sql: database } : { url, max: 2 });
  } catch (e) {
    throw databaseFailure(url, e);
  }
}

/** The passkeys store: tables of migration 0045 on PostgreSQL, logs under data/passkeys/ embedded. */
export async function openPasskeyStore(
  config: Pick<Config, 'PRESENCE_DATABASE_URL' | 'PRESENCE_DATA_DIR'>,
  database?: Database | null,
): Promise<PasskeyStorePort> {
  const url = config.PRESENCE_DATABASE_URL;
  if (!url) return createLowdbPasskeyStore({ dataDir: config.PRESENCE_DATA_DIR });
  try {
    return await createPostgresPasskeyStore(database ? { sql: database } : { url });
  } catch (e) {
    throw databaseFailure(url, e);
  }
}
