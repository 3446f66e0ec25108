// The PostgreSQL store adapter and its migrations: `@presence/core/postgres`, kept off the
// root export so an embedded install never loads the driver.

export { createPostgresCluster, EVENTS_CHANNEL, type PostgresCluster, parseEventsNotice } from './cluster';
export { type Database, type DatabaseSource, openDatabase } from './database';
export { createPostgresDeploymentBook, type DeploymentBook } from './devnet-deployments';
export { createPostgresIdempotencyLeases } from './idempotency-leases';
export { type ImportCounts, importLowdb } from './import-lowdb';
export { connectedServers, type Leadership, type LeadershipOptions, startLeadership } from './leadership';
export { postgresMasterKeyCheck } from './master-key-check';
export { type AppliedMigration, loadMigrations, type Migration, type MigrationStatus, migrate, migrationStatus } from './migrate';
export { createPostgresPasskeyStore } from './passkeys';
export { createPostgresLocks, lockConnections, type PostgresLocksOptions } from './postgres-locks';
export { createPostgresStore, type PostgresStoreOptions } from './postgres-store';
export { resealPostgres } from './reseal';
export { createPostgresSurfaceStore } from './surfaces';
export { createPostgresOverlayShare } from './test-overlays';
export { createPostgresWebhookStore } from './webhooks';
