// Makes a directory tree private: the directory and every directory under it 0700, every file
// 0600. The server runs this on its data directory at start, so a tree written by an earlier
// version (0755 directories, 0644 files) is fixed before anything is served; what is created
// afterwards is created private (durable-file.ts). The walk costs one lstat per entry (with
// 100,000 accounts, hundreds of thousands of files), so it runs once per data directory: a
// marker file (.private) records that it was done, and later starts only check the root.
// `tightenModes` is the walk itself, for a directory kept private on every start (the bots').
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
  const changed = tightenModes(root, { recursive: true }).length;
  writeFileSync(marker, 'the tree below was made private (0700 directories, 0600 files) once; files are created private since\n', {
    mode: PRIVATE_FILE,
  });
  return changed;
}

export type Tightened = { path: string; from: number; to: number };

/**
 * Sets `dir` to 0700 and each file in it to 0600 and, with `recursive`, every directory and
 * file below it too (without, subdirectories are left as they are); answers each change.
 * Symbolic links are neither followed nor changed, except `dir` itself: the data may live
 * where it points.
 */
export function tightenModes(dir: string, { recursive }: { recursive: boolean }): Tightened[] {
  const changed: Tightened[] = [];
  const fix = (p: string, to: number, current: number) => {
    if ((current & 0o777) === to) return;
    chmodSync(p, to);
    changed.push({ path: p, from: current & 0o777, to });
  };
  const walk = (d: string, mode: number) => {
    fix(d, PRIVATE_DIR, mode);
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory() && recursive) walk(p, lstatSync(p).mode);
      else if (entry.isFile()) fix(p, PRIVATE_FILE, lstatSync(p).mode);
    }
  };
  walk(dir, statSync(dir).mode);
  return changed;
}
