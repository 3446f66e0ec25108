// A pack that fails leaves the repository as it was (scripts/publish-manifest.mjs): a
// --pack-destination that does not exist is refused before the build, with nothing rewritten;
// a pack that fails after the manifest was rewritten (npm cannot write the tarball, so its
// postpack never runs) gets the manifest back once npm has exited. Real npm, on a copy of the
// protocol package in a git repository of its own, so `git status` says what changed and the
// repository the other tests run on is never touched.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from './harness';
import { until } from './wallet-helpers';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let repo: string;
let pkg: string;

const git = (...args: string[]) =>
  spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo, encoding: 'utf8' });
const status = () => git('status', '--porcelain', '--untracked-files=all').stdout.trim();
/** `npm pack` in the package as a user types it, with npm's own environment (not the test runner's npm_* variables). */
const npmPack = (dest: string) =>
  spawnSync('npm', ['pack', '--pack-destination', dest], {
    cwd: pkg,
    encoding: 'utf8',
    timeout: 180_000,
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  });

beforeAll(() => {
  repo = tempDir('presence-pack-failure-');
  pkg = path.join(repo, 'protocol');
  for (const f of ['LICENSE', 'tsconfig.json', 'scripts/publish-manifest.mjs']) cpSync(path.join(ROOT, f), path.join(repo, f));
  cpSync(path.join(ROOT, 'protocol'), pkg, { recursive: true, filter: (src) => !/[/\\](dist|node_modules)$/.test(src) });
  // The repository's installed packages (tsup for the build), as the workspace root has them.
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(repo, 'node_modules'));
  mkdirSync(path.join(repo, 'out'));
  git('init', '-q');
  spawnSync('sh', ['-c', 'printf "node_modules\\ndist/\\nout/\\n" > .gitignore'], { cwd: repo });
  git('add', '-A');
  git('commit', '-qm', 'as packed');
  expect(status()).toBe('');
});

afterAll(() => removeDir(repo));

describe('npm pack that fails', () => {
  it('to a destination that does not exist: refused in one line before the build, nothing rewritten', () => {
    const missing = path.join(repo, 'out/missing');
    const r = npmPack(missing);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`presence: --pack-destination ${missing} is not a directory: make it first (mkdir -p ${missing})`);
    expect(existsSync(path.join(pkg, 'dist'))).toBe(false); // refused before the build
    expect(status()).toBe('');
  }, 180_000);

  it('after the manifest was rewritten (npm cannot write the tarball): the manifest and LICENSE are put back once npm exits', async () => {
    // The tarball's own path is a directory: npm builds, runs prepack, then fails to write it.
    const dest = path.join(repo, 'out/taken');
    mkdirSync(path.join(dest, 'presence-protocol-0.1.0.tgz'), { recursive: true });
    const r = npmPack(dest);
    expect(r.status).not.toBe(0);
    expect(existsSync(path.join(pkg, 'dist/index.js'))).toBe(true); // it did get past the build and prepack
    await until(async () => status() === '', 15_000, 'the manifest restored after the failed pack');
    expect(existsSync(path.join(pkg, '.package.dev.json'))).toBe(false);
  }, 180_000);
});
