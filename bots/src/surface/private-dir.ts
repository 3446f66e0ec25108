// The bots' data directory is private: the directory 0700, every file in it 0600. Files we
// write are created so; this also tightens what is already there at start: a directory made
// by an earlier version (or by hand, or a copy) with looser modes, and any file left in it.
// Symbolic links and subdirectories are not ours to change and are left alone.
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

export type Tightened = { path: string; from: number; to: number };

/** Creates `dir` if needed and sets the modes above; returns what it had to change. */
export function makePrivateDir(dir: string): Tightened[] {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const changed: Tightened[] = [];
  const set = (file: string, mode: number, to: number) => {
    if ((mode & 0o777) === to) return;
    chmodSync(file, to);
    changed.push({ path: file, from: mode & 0o777, to });
  };
  set(dir, statSync(dir).mode, DIR_MODE);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isFile()) set(file, lstatSync(file).mode, FILE_MODE);
  }
  return changed;
}
