// Opens the surfaces store beside the main one: on PostgreSQL its tables in the same database
// (migration 0010, applied with the others), on the embedded store its logs under
// data/surfaces/ in the same data directory.
import type { StorePort, SurfaceStorePort } from '@presence/core';
import { createLowdbSurfaceStore } from '@presence/core/lowdb';
import { createPostgresSurfaceStore, type Database } from '@presence/core/postgres';
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
