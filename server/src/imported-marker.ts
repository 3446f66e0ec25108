// A data directory copied into PostgreSQL by `presence-server import-lowdb` is marked so
// (imported.json: into which database, when). Its records stay as they were, so a later start
// on it without PRESENCE_DATABASE_URL would quietly serve a stale copy beside the database:
// that start, and `accounts create` there, are refused until the mark is removed on purpose.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StartRefused } from './start-refused';

export const IMPORTED_FILE = 'imported.json';

type Mark = { database: string; imported_at: string };

export function markImported(dataDir: string, database: string, now = new Date()): void {
  const mark: Mark = { database, imported_at: now.toISOString() };
  writeFileSync(path.join(dataDir, IMPORTED_FILE), `${JSON.stringify(mark)}\n`, { mode: 0o600 });
}

/** The mark of an imported directory (unreadable: a mark all the same), or null. */
function markOf(dir: string): Partial<Mark> | null {
  const file = path.join(dir, IMPORTED_FILE);
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<Mark>;
  } catch {
    return {};
  }
}

const copied = (dir: string, mark: Partial<Mark>) =>
  `${dir} was copied into the database at ${mark.database ?? '(unknown)'} by import-lowdb (${mark.imported_at ?? 'date unknown'})`;

/** Throws StartRefused when `dataDir` was imported into a database; for the embedded store only. */
export function refuseImported(dataDir: string): void {
  const mark = markOf(dataDir);
  if (!mark) return;
  throw new StartRefused(
    `${copied(dataDir, mark)}: set that PRESENCE_DATABASE_URL, or remove ${path.join(dataDir, IMPORTED_FILE)} to serve this directory's older copy`,
  );
}

/**
 * Throws StartRefused for a backup of an imported directory, or a restore of one: the records
 * live in PostgreSQL now, and a restored copy is a directory no server starts on.
 */
export function refuseImportedBackup(dir: string, what: 'backup' | 'restore'): void {
  const mark = markOf(dir);
  if (!mark) return;
  const instead = 'back up the database with pg_dump and restore it with pg_restore (docs/operations.md, "Backups")';
  throw new StartRefused(
    what === 'backup'
      ? `${copied(dir, mark)}: its records live in PostgreSQL now; ${instead}`
      : `${dir} is a backup of a directory that was copied into the database at ${mark.database ?? '(unknown)'} by import-lowdb: no server starts on it; ${instead}`,
  );
}
