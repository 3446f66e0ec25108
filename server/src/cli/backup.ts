// `presence-server backup DIR`: a consistent copy of an embedded install, also while its
// server runs (paused for the copy: src/backup.ts). A database is backed up with pg_dump.

import path from 'node:path';
import type { Command } from 'commander';
import { backupDataDir } from '../backup';
import { invocationDir, loadConfig } from '../config';
import { fail } from './fail';

export function registerBackup(program: Command) {
  program
    .command('backup')
    .argument('<dir>', 'a new or empty directory for the copy')
    .description(
      'copy the embedded install at PRESENCE_DATA_DIR into DIR, consistently, also while its server runs (paused for the copy); with PRESENCE_DATABASE_URL use pg_dump instead',
    )
    .action((dir: string) => {
      // Said before the configuration is checked: with a database it would first ask for a
      // master key that this command has no use for.
      if (process.env.PRESENCE_DATABASE_URL) {
        fail('PRESENCE_DATABASE_URL is set: the records are in PostgreSQL; back them up with pg_dump (docs/operations.md, "Backups")', 2);
      }
      const config = loadConfig();
      const dest = path.resolve(invocationDir(process.env), dir);
      const { files, paused } = backupDataDir(config.PRESENCE_DATA_DIR, dest);
      process.stdout.write(
        `backed up ${config.PRESENCE_DATA_DIR} to ${dest} (${files} files${paused === null ? '' : `; server pid ${paused} paused for the copy`})\n`,
      );
    });
}
