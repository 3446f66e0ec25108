import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { removeDir, tempDir } from '../src/harness';
import { pack, run, sizeOf } from '../src/user-shell';
import { fmt, percentile, type Row } from './stats';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = ['protocol', 'client', 'cli'];
const VERSION_RUNS = 15;

const mb = (bytes: number) => `${fmt(bytes / 1e6, 1)} MB`;
const kb = (bytes: number) => `${fmt(bytes / 1e3, 0)} KB`;

export async function packagesBenchmarks(rows: Row[]) {
  const work = tempDir('bench-packages-');
  try {
    const tarballs = PACKAGES.map((name) => pack(path.join(repo, name), work));
    const project = path.join(work, 'consumer');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    run('npm', ['install', '--no-audit', '--no-fund', ...tarballs], project);
    rows.push({
      benchmark: 'SDK + CLI installed from their tarballs: node_modules size',
      figure: mb(sizeOf(path.join(project, 'node_modules'))),
      target: '< 20 MB',
    });

    const bin = path.join(project, 'node_modules', '.bin', 'presence');
    run(bin, ['--version'], project); // warm the file cache
    const times: number[] = [];
    for (let i = 0; i < VERSION_RUNS; i++) {
      const t0 = performance.now();
      run(bin, ['--version'], project);
      times.push(performance.now() - t0);
    }
    rows.push({
      benchmark: `presence --version (installed bin, plain Node), median of ${VERSION_RUNS} ms`,
      figure: fmt(percentile(times, 50), 0),
      target: '< 150',
    });

    const entry = path.join(project, 'entry.mjs');
    writeFileSync(entry, "export { createPresenceClient, PresenceApiError } from '@presence/client';\n");
    const bundled = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      absWorkingDir: project,
      logLevel: 'silent',
    });
    const code = bundled.outputFiles[0]?.contents ?? new Uint8Array();
    rows.push({
      benchmark: 'SDK bundled for a browser (esbuild, minified): raw / gzipped',
      figure: `${kb(code.byteLength)} / ${kb(gzipSync(code, { level: 9 }).byteLength)}`,
      target: '',
    });
  } finally {
    removeDir(work);
  }
}
