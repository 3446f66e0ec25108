// The PostgreSQL store adapter and its migrations: `@presence/core/postgres`, kept off the
// root export so an embedded install never loads the driver.

export { createPostgresCluster, EVENTS_CHANNEL, type PostgresCluster, parseEventsNotice } from './cluster';
export { type ImportCounts, importLowdb } from './import-lowdb';
export { type AppliedMigration, loadMigrations, type Migration, type MigrationStatus, migrate, migrationStatus } from './migrate';
export { createPostgresStore, type PostgresStoreOptions } from './postgres-store';
