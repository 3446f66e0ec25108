// The store as an operator's one-off command opens it: the database beside running servers
// (every write is a transaction there), or the data directory, which one process owns (refused
// while a server runs on it, and held while the command writes).

import { existsSync } from 'node:fs';
import { createCore, makeTreePrivate, type SharedStore, type StoreWiring, systemClock } from '@presence/core';
import { createLowdbStore } from '@presence/core/lowdb';
import { createPostgresCluster, createPostgresStore, openDatabase } from '@presence/core/postgres';
import { loadConfig } from '../config';
import { lockHolder, takeDataDirLock } from '../data-dir-lock';
import { databaseFailure, databaseLabel } from '../open-store';
import { openSurfaceStore } from '../open-surfaces';
import { fail } from './fail';

/**
 * The database as an operator's one-off command uses it beside running servers: the store and
 * the cluster port (a shared store is served only with it: core/src/create-core.ts) on one
 * small pool of its own.
 */
export async function openOperatorDatabase(url: string): Promise<{ wiring: StoreWiring & { store: SharedStore }; close(): Promise<void> }> {
  const sql = openDatabase(url, { max: 3 });
  try {
    const store = await createPostgresStore({ sql });
    const cluster = await createPostgresCluster({ sql, clock: systemClock });
    return {
      wiring: { store, cluster },
      async close() {
        await cluster.close();
        await store.close();
        await sql.end({ timeout: 5 });
      },
    };
  } catch (e) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw databaseFailure(url, e);
  }
}

/**
 * Takes the data directory for an operator's writes: refused (exit 3) while a server runs on it,
 * and held meanwhile, so a server started then refuses to start instead of undoing the writes.
 * Answers the release.
 */
export function holdDataDir(dataDir: string): () => void {
  const holder = lockHolder(dataDir);
  if (holder !== null) {
    fail(
      `a Presence server (pid ${holder}) is running on ${dataDir}; stop it first (Ctrl-C in its terminal, or kill ${holder}), then run this again`,
      3,
    );
  }
  const unlock = takeDataDirLock(dataDir);
  try {
    if (existsSync(dataDir)) makeTreePrivate(dataDir);
  } catch (e) {
    unlock();
    throw e;
  }
  return unlock;
}

/**
 * Runs `work` on a core over the configured store: the database beside running servers, or the
 * data directory (which one process owns: refused while a server runs on it).
 */
export async function withOperatorCore<T>(work: (core: ReturnType<typeof createCore>, where: string) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const url = config.PRESENCE_DATABASE_URL;
  if (url) {
    const db = await openOperatorDatabase(url);
    try {
      const surfaces = await openSurfaceStore(config, db.wiring.store);
      try {
        return await work(
          createCore({ ...db.wiring, surfaces, clock: systemClock, rateLimit: config.PRESENCE_RATE_LIMIT }),
          `in the database at ${databaseLabel(url)}`,
        );
      } finally {
        await surfaces.close();
      }
    } finally {
      await db.close();
    }
  }
  const dataDir = config.PRESENCE_DATA_DIR;
  const unlock = holdDataDir(dataDir);
  try {
    const store = await createLowdbStore({ dataDir });
    const surfaces = await openSurfaceStore(config, store);
    try {
      return await work(createCore({ store, surfaces, clock: systemClock, rateLimit: config.PRESENCE_RATE_LIMIT }), `data in ${dataDir}`);
    } finally {
      await surfaces.close();
      await store.close();
    }
  } finally {
    unlock();
  }
}
