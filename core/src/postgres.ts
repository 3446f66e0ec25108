// `@presence/core/postgres`: the PostgreSQL adapters, kept off the root export so an embedded
// install never loads the driver: the stores and their migrations (store/postgres/) and the
// coordination between servers sharing the database (cluster/postgres/). One entry for both,
// here above them, so neither folder imports the other's index.

export { createPostgresCluster, EVENTS_CHANNEL, type PostgresCluster, parseEventsNotice } from './cluster/postgres/cluster';
export { createPostgresIdempotencyLeases } from './cluster/postgres/idempotency-leases';
export { connectedServers, type Leadership, type LeadershipOptions, startLeadership } from './cluster/postgres/leadership';
export { createPostgresLocks, lockConnections, type PostgresLocksOptions } from './cluster/postgres/postgres-locks';
export { type Database, type DatabaseSource, openDatabase } from './store/postgres/database';
export { createPostgresDeploymentBook, type DeploymentBook } from './store/postgres/devnet-deployments';
export { type ImportCounts, importLowdb } from './store/postgres/import-lowdb';
export { postgresMasterKeyCheck } from './store/postgres/master-key-check';
export {
  type AppliedMigration,
  loadMigrations,
  type Migration,
  type MigrationStatus,
  migrate,
  migrationStatus,
} from './store/postgres/migrate';
export { createPostgresPasskeyStore } from './store/postgres/passkeys';
export { createPostgresStore, type PostgresStoreOptions } from './store/postgres/postgres-store';
export { resealPostgres } from './store/postgres/reseal';
export { createPostgresSurfaceStore } from './store/postgres/surfaces';
export { createPostgresOverlayShare } from './store/postgres/test-overlays';
export { createPostgresWebhookStore } from './store/postgres/webhooks';
