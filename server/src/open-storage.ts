// Everything a server keeps, and what it shares with the other servers through it: the store
// (checked against the master key, timed for /metrics), the surfaces store, and on PostgreSQL
// the cluster port (events, key and account changes and rate counts travelling between
// servers: LISTEN/NOTIFY and shared tables) and the test keys' shared overlay — all on the
// server's one pool, which closes after everything that uses it.
import type { Clock, CoreOptions, Keystore, PasskeyStorePort, StoreWiring, SurfaceStorePort, WebhookStorePort } from '@presence/core';
import { redactMessage } from '@presence/core';
import { createPostgresCluster, createPostgresOverlayShare, type Database, type PostgresCluster } from '@presence/core/postgres';
import type { StoreInfo } from '@presence/protocol';
import type { Cleanups } from './cleanups';
import type { Config } from './config';
import { checkMasterKey } from './master-key';
import { meteredStore } from './metrics/metered-ports';
import type { Metrics } from './metrics/metrics';
import { databaseFailure, openStore } from './open-store';
import { openPasskeyStore, openSurfaceStore, openWebhookStore } from './open-surfaces';

export type Storage = {
  /** The store core works on (timed: its writes show on /metrics), with the cluster port when it is shared. */
  wiring: StoreWiring;
  info: StoreInfo;
  /** The server's pool, on PostgreSQL. */
  database: Database | null;
  surfaces: SurfaceStorePort;
  webhooks: WebhookStorePort;
  passkeys: PasskeyStorePort;
  /** What servers on the database tell each other; null embedded. */
  cluster: PostgresCluster | null;
  /** Test keys' overlay shared through the database, so any server answers a test key's reads. */
  overlayShare: NonNullable<CoreOptions['overlayShare']> | null;
};

export async function openStorage(
  config: Config,
  keystore: Keystore,
  { clock, metrics, cleanups }: { clock: Clock; metrics: Metrics; cleanups: Cleanups },
): Promise<Storage> {
  const opened = await openStore(config, keystore);
  const { database } = opened;
  if (database) cleanups.add(() => database.end({ timeout: 5 }));
  cleanups.add(() => opened.store.close());
  await checkMasterKey(config, keystore, opened.store);
  const surfaces = await openSurfaceStore(config, opened.store, database);
  cleanups.add(() => surfaces.close());
  const webhooks = await openWebhookStore(config, database);
  cleanups.add(() => webhooks.close());
  const passkeys = await openPasskeyStore(config, database);
  cleanups.add(() => passkeys.close());
  let cluster: PostgresCluster | null = null;
  let wiring: StoreWiring;
  if (opened.database) {
    const shared = await createPostgresCluster({
      sql: opened.database,
      clock,
      // Redacted as log lines are (core's errors/redact-message.ts): a driver's message can name its connection.
      onError: (err) => console.error('presence: cluster read failed:', redactMessage(err instanceof Error ? err.message : String(err))),
    }).catch((e: unknown) => {
      throw databaseFailure(config.PRESENCE_DATABASE_URL as string, e);
    });
    cleanups.add(() => shared.close());
    cluster = shared;
    wiring = { store: meteredStore(opened.store, metrics), cluster: shared };
  } else wiring = { store: meteredStore(opened.store, metrics) };
  const overlayShare = database ? createPostgresOverlayShare({ sql: database }) : null;
  if (overlayShare) cleanups.add(() => overlayShare.close());
  return { wiring, info: opened.info, database, surfaces, webhooks, passkeys, cluster, overlayShare };
}
