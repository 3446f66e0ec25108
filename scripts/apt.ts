// Installing one of Debian's packages for the tests, the one way the repository does it:
// `npm test`'s pretest finds Chromium and nginx on this machine and, when one is missing and
// apt can run as root (directly, or through sudo that needs no password), installs Debian's
// package; otherwise it stops with one line saying what to install.
import { spawnSync } from 'node:child_process';
import { findOnPath } from './chromium';

/** How to run apt-get with root rights here: the command prefix, or null when we cannot. */
function rootPrefix(): string[] | null {
  if (!findOnPath(['apt-get'])) return null;
  if (process.getuid?.() === 0) return [];
  if (findOnPath(['sudo']) && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) return ['sudo', '-n'];
  return null;
}

export type Needed = {
  /** The word each line starts with: `ensure-chromium`, `ensure-nginx`. */
  who: string;
  /** What it is, for the lines: "Chromium". */
  what: string;
  /** Debian's package. */
  pkg: string;
  /** Where it is now, or undefined; throws (one line) when a setting points nowhere. */
  lookUp(): string | undefined;
  /** What to tell someone who has none and whom we cannot install it for. */
  hint: string;
  /** How long it takes, for the line said before installing. */
  takes: string;
};

/** Finds it, or installs Debian's package; exits the process with one line when neither works. */
export function ensureDebianPackage(n: Needed): string {
  const say = (line: string) => process.stderr.write(`${n.who}: ${line}\n`);
  const fail = (line: string): never => {
    say(line);
    process.exit(1);
  };
  const lookUp = () => {
    try {
      return n.lookUp();
    } catch (e) {
      // Only a setting that points nowhere throws: installing another would hide it.
      return fail(`${(e as Error).message}; fix it or unset it`);
    }
  };
  const aptGet = (prefix: string[], args: string[]) => {
    // `env` carries DEBIAN_FRONTEND through sudo, whose env_reset would drop it. dpkg's
    // per-package chatter (stdout) is left out; errors (stderr) still show.
    const [cmd, ...rest] = [...prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args] as [string, ...string[]];
    const r = spawnSync(cmd, rest, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) fail(`\`apt-get ${args.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status}`}); ${n.hint}`);
  };

  const present = lookUp();
  if (present) {
    say(`using ${present}`);
    return present;
  }
  const prefix = rootPrefix();
  if (!prefix) return fail(`no ${n.what} found: ${n.hint}`);
  say(`no ${n.what} found; installing Debian's ${n.pkg} with ${[...prefix, 'apt-get'].join(' ')} (${n.takes})…`);
  // Waits for another apt (say, unattended upgrades) to let go of its lock instead of failing.
  const wait = ['-o', 'DPkg::Lock::Timeout=300'];
  aptGet(prefix, ['update', '-qq', ...wait]);
  aptGet(prefix, ['install', '-y', '-qq', ...wait, n.pkg]);
  const installed = lookUp();
  if (!installed) return fail(`apt-get installed ${n.pkg} but it is not found; ${n.hint}`);
  say(`installed ${installed}`);
  return installed;
}
