// `presence-server migrate [--status]`: applies (or lists) the database's schema migrations;
// a database a newer Presence migrated is refused, as serve refuses it.

import { loadMigrations, type MigrationStatus, migrate, migrationStatus } from '@presence/core/postgres';
import type { Command } from 'commander';
import { loadDatabaseUrl } from '../config';
import { databaseFailure, databaseLabel } from '../open-store';
import { refuseNewerSchema } from '../schema-check';
import { StartRefused } from '../start-refused';

const migrationName = (m: { version: number; name: string }) => `${String(m.version).padStart(4, '0')}_${m.name}`;
const knownVersions = () => loadMigrations().map((m) => m.version);
const schemaVersion = (status: MigrationStatus) => Math.max(0, ...status.applied.map((a) => a.version));

export function registerMigrate(program: Command) {
  program
    .command('migrate')
    .description('apply the pending schema migrations to the database (PRESENCE_DATABASE_URL); servers also apply them at start')
    .option('--status', 'list applied and pending migrations, change nothing')
    .action(async ({ status: onlyStatus }: { status?: boolean }) => {
      const url = loadDatabaseUrl();
      const where = databaseLabel(url);
      try {
        // A newer Presence migrated this database: applying ours beside its own is refused, as serve refuses.
        if (!onlyStatus) {
          refuseNewerSchema(await migrationStatus(url), knownVersions(), where);
          const applied = await migrate(url);
          process.stdout.write(applied.length > 0 ? `applied ${applied.length} migration(s) to ${where}\n` : `${where} is up to date\n`);
        }
        printStatus(await migrationStatus(url), where);
      } catch (e) {
        if (e instanceof StartRefused) throw e;
        throw databaseFailure(url, e);
      }
    });
}

function printStatus(status: MigrationStatus, where: string) {
  const unknown = new Set(status.unknown);
  process.stdout.write(`schema version ${schemaVersion(status)} (${where})\n`);
  // Each version once: one a newer Presence applied is `unknown`, not also `applied`.
  for (const a of status.applied)
    if (!unknown.has(a.version)) process.stdout.write(`  applied  ${migrationName(a)}  ${a.applied_at.toISOString()}\n`);
  for (const p of status.pending) process.stdout.write(`  pending  ${migrationName(p)}\n`);
  for (const a of status.applied)
    if (unknown.has(a.version))
      process.stdout.write(`  unknown  ${migrationName(a)}  ${a.applied_at.toISOString()} (applied by a newer Presence)\n`);
}
