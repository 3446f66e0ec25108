// Makes a directory tree private: the directory and every directory under it 0700, every file
// 0600. The server runs this on its data directory at start, so a tree written by an earlier
// version (0755 directories, 0644 files) is fixed before anything is served; what is created
// afterwards is created private (durable-file.ts), so one walk per start is enough. It costs
// one lstat per entry, plus a chmod for each that was wrong.
import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR, PRIVATE_FILE } from './durable-file';

/** Answers how many entries had their mode changed. Symbolic links are neither followed nor changed. */
export function makeTreePrivate(root: string): number {
  let changed = 0;
  const fix = (p: string, mode: number, current: number) => {
    if ((current & 0o777) === mode) return;
    chmodSync(p, mode);
    changed++;
  };
  const walk = (dir: string, mode: number) => {
    fix(dir, PRIVATE_DIR, mode);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p, lstatSync(p).mode);
      else if (entry.isFile()) fix(p, PRIVATE_FILE, lstatSync(p).mode);
    }
  };
  // The root itself may be a link to where the data is kept: that one is followed.
  walk(root, statSync(root).mode);
  return changed;
}
