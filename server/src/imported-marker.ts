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

/** Throws StartRefused when `dataDir` was imported into a database; for the embedded store only. */
export function refuseImported(dataDir: string): void {
  const file = path.join(dataDir, IMPORTED_FILE);
  if (!existsSync(file)) return;
  let mark: Partial<Mark> = {};
  try {
    mark = JSON.parse(readFileSync(file, 'utf8')) as Partial<Mark>;
  } catch {
    // Unreadable: still a mark; the line below says what to do either way.
  }
  throw new StartRefused(
    `${dataDir} was copied into the database at ${mark.database ?? '(unknown)'} by import-lowdb (${mark.imported_at ?? 'date unknown'}): set that PRESENCE_DATABASE_URL, or remove ${file} to serve this directory's older copy`,
  );
}
