// A data directory left world-readable by an earlier version (0755 directories, 0644 files) is
// made private at start, all the way down, without following links out of it.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTreePrivate } from './private-tree';

const mode = (p: string) => statSync(p).mode & 0o777;

describe.runIf(process.platform !== 'win32')('makeTreePrivate', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'private-tree-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('makes every directory 0700 and every file 0600, leaves what links point to alone, and then has nothing to do', () => {
    const root = path.join(base, 'data-dir');
    const dirs = [root, path.join(root, 'data'), path.join(root, 'data', 'memory'), path.join(root, 'devnet')];
    for (const d of dirs) mkdirSync(d, { recursive: true, mode: 0o755 });
    const files = [
      path.join(root, 'master.key'),
      path.join(root, 'data', 'accounts.json'),
      path.join(root, 'data', 'memory', 'default.json'),
      path.join(root, 'devnet', 'state.json'),
    ];
    for (const f of files) writeFileSync(f, '{}', { mode: 0o644 });
    for (const d of dirs) chmodSync(d, 0o755);
    const outside = path.join(base, 'shared.txt');
    writeFileSync(outside, 'not ours', { mode: 0o644 });
    symlinkSync(outside, path.join(root, 'data', 'link-out'));

    expect(makeTreePrivate(root)).toBe(dirs.length + files.length);
    for (const d of dirs) expect([d, mode(d)]).toEqual([d, 0o700]);
    for (const f of files) expect([f, mode(f)]).toEqual([f, 0o600]);
    expect(mode(outside)).toBe(0o644);
    expect(makeTreePrivate(root)).toBe(0);
  });
});
