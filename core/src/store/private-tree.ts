// Makes a directory tree private: the directory and every directory under it 0700, every file
// 0600. The server runs this on its data directory at start, so a tree written by an earlier
// version (0755 directories, 0644 files) is fixed before anything is served; what is created
// afterwards is created private (durable-file.ts). The walk costs one lstat per entry (with
// 100,000 accounts, hundreds of thousands of files), so it runs once per data directory: a
// marker file (.private) records that it was done, and later starts only check the root.
import { chmodSync, existsSync, lstatSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR, PRIVATE_FILE } from './durable-file';

const MARKER = '.private';

/** Answers how many entries had their mode changed. Symbolic links are neither followed nor changed. */
export function makeTreePrivate(root: string): number {
  const marker = path.join(root, MARKER);
  if (existsSync(marker)) {
    const mode = statSync(root).mode & 0o777;
    if (mode === PRIVATE_DIR) return 0;
    chmodSync(root, PRIVATE_DIR);
    return 1;
  }
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
  writeFileSync(marker, 'the tree below was made private (0700 directories, 0600 files) once; files are created private since\n', {
    mode: PRIVATE_FILE,
  });
  return changed;
}
