// `npm test`'s pretest: the extension's end-to-end test drives a real Chromium (the
// distribution's, never a downloaded one). Find it exactly as that test does; when it is
// missing and apt can install it — as root, or through sudo that needs no password — install
// Debian's `chromium`; otherwise stop with one line saying what to install.
import { spawnSync } from 'node:child_process';
import { findChromium, findOnPath, INSTALL_HINT } from './chromium';

const say = (line: string) => process.stderr.write(`ensure-chromium: ${line}\n`);

function fail(line: string): never {
  say(line);
  process.exit(1);
}

function lookUp(): string | undefined {
  try {
    return findChromium();
  } catch (e) {
    // Only a PRESENCE_CHROMIUM that points nowhere throws: installing another would hide it.
    return fail(`${(e as Error).message}; fix it or unset it`);
  }
}

/** How to run apt-get with root rights here: the command prefix, or null when we cannot. */
function rootPrefix(): string[] | null {
  if (!findOnPath(['apt-get'])) return null;
  if (process.getuid?.() === 0) return [];
  if (findOnPath(['sudo']) && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return null;
}

function aptGet(prefix: string[], args: string[]): void {
  // `env` carries DEBIAN_FRONTEND through sudo, whose env_reset would drop it. dpkg's
  // per-package chatter (stdout) is left out; errors (stderr) still show.
  const [cmd, ...rest] = [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args] as [string, ...string[]];
  const r = spawnSync(cmd, rest, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) fail(`\`apt-get ${args.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}); ${INSTALL_HINT}`);
}

const present = lookUp();
if (present) {
  say(`using ${present}`);
} else {
  const prefix = rootPrefix();
  if (!prefix) fail(`no Chromium found (PRESENCE_CHROMIUM, chromium or chromium-browser on PATH): ${INSTALL_HINT}`);
  say(`no Chromium found; installing Debian's chromium with ${[...prefix, 'apt-get'].join(' ')} (takes a minute or two)…`);
  // Waits for another apt (say, unattended upgrades) to let go of its lock instead of failing.
  const wait = ['-o', 'DPkg::Lock::Timeout=300'];
  aptGet(prefix, ['update', '-qq', ...wait]);
  aptGet(prefix, ['install', '-y', '-qq', ...wait, 'chromium']);
  const installed = lookUp();
  if (!installed) fail(`apt-get installed chromium but it is not on PATH; ${INSTALL_HINT}`);
  say(`installed ${installed}`);
}
