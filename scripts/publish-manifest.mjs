#!/usr/bin/env node
// npm's prepack/postpack for the published packages (protocol, client, cli). Inside the
// monorepo their package.json points `exports`/`bin` at TypeScript source, so tests, tsx and
// tsc need no build; the tarball must point at dist/. pnpm and yarn apply `publishConfig`
// overrides on pack; npm does not, so `apply` does (keeping the original beside it) and copies
// the root LICENSE in, and `restore` puts both back. Plain JS: it runs before anything is built.
// npm runs postpack only after a pack that succeeded, so `apply` also leaves a watcher behind
// that restores the manifest once npm has exited, whatever became of the pack (a missing
// destination, Ctrl-C); and `check`, first in prepack, refuses a --pack-destination that is
// not a directory before the build, with nothing rewritten.
//   node ../scripts/publish-manifest.mjs check|apply|restore   (in the package directory)
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const manifest = 'package.json';
const kept = '.package.dev.json';
const license = 'LICENSE';

const step = process.argv[2];
if (step === 'check') {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: npm sets it for its lifecycle scripts; no turbo task runs this
  const dest = process.env.npm_config_pack_destination;
  if (dest && !(existsSync(dest) && statSync(dest).isDirectory())) {
    console.error(`presence: --pack-destination ${dest} is not a directory: make it first (mkdir -p ${dest})`);
    process.exit(1);
  }
} else if (step === 'watch') {
  // Detached from npm: waits for it to exit, then puts back what postpack did not.
  const npm = Number(process.argv[3]);
  const alive = () => {
    try {
      process.kill(npm, 0);
      return true;
    } catch {
      return false;
    }
  };
  const timer = setInterval(() => {
    if (alive()) return;
    clearInterval(timer);
    restore();
  }, 100);
} else if (step === 'apply') {
  // A pack that died between the two steps left the rewritten manifest: start from the kept one.
  restore();
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  const { publishConfig = {}, ...rest } = pkg;
  const { exports, bin, ...config } = publishConfig;
  const published = { ...rest, ...(exports ? { exports } : {}), ...(bin ? { bin } : {}), publishConfig: config };
  if (Object.keys(config).length === 0) delete published.publishConfig;
  const copyLicense = !existsSync(license);
  writeFileSync(kept, JSON.stringify({ manifest: text, copiedLicense: copyLicense }));
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`);
  if (copyLicense) copyFileSync(path.join(root, license), license);
  const npm = npmPid();
  if (npm) spawn(process.execPath, [fileURLToPath(import.meta.url), 'watch', String(npm)], { detached: true, stdio: 'ignore' }).unref();
} else if (step === 'restore') {
  restore();
} else {
  console.error('usage: publish-manifest.mjs check|apply|restore');
  process.exit(2);
}

/**
 * npm's pid: this script's parent, or the parent of the shell npm ran it in (npm → sh -c →
 * node; a shell may also exec its last command, leaving npm the parent itself).
 */
function npmPid() {
  const parentOf = (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return {
        name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        parent: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
      };
    } catch {
      const r = spawnSync('ps', ['-o', 'comm=,ppid=', '-p', String(pid)], { encoding: 'utf8' });
      const m = /^\s*(\S+)\s+(\d+)\s*$/.exec(r.stdout);
      return m ? { name: path.basename(m[1]), parent: Number(m[2]) } : null;
    }
  };
  const parent = parentOf(process.ppid);
  if (!parent) return null;
  return ['sh', 'dash', 'bash', 'zsh'].includes(parent.name) ? parent.parent : process.ppid;
}

/** Puts back the manifest `apply` kept, and takes away the LICENSE it copied in (nothing kept: nothing to do). */
function restore() {
  if (!existsSync(kept)) return;
  const { manifest: text, copiedLicense } = JSON.parse(readFileSync(kept, 'utf8'));
  writeFileSync(manifest, text);
  if (copiedLicense) rmSync(license, { force: true });
  rmSync(kept);
}
