// Where Chromium is on this machine, decided in one place for everyone who needs it: the
// root `pretest` step (scripts/ensure-chromium.ts, which installs it when missing) and the
// extension's browser test (extension/test/e2e), so both always agree on the binary.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Names Debian (`chromium`) and Ubuntu or older distributions (`chromium-browser`) install it as. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser'] as const;

export function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first of `names` found as an executable file in a PATH directory, in that order of names. */
export function findOnPath(names: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter((d) => d !== '');
  for (const name of names) {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      if (isExecutableFile(file)) return file;
    }
  }
  return undefined;
}

/**
 * PRESENCE_CHROMIUM when set, otherwise the first `chromium`, then `chromium-browser`, on
 * PATH; undefined when there is none. A PRESENCE_CHROMIUM that is not an executable file
 * throws: it was asked for explicitly, so falling back to another browser would hide the typo.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.PRESENCE_CHROMIUM;
  if (chosen) {
    if (!isExecutableFile(chosen)) throw new Error(`PRESENCE_CHROMIUM=${chosen} is not an executable file`);
    return chosen;
  }
  return findOnPath(CHROMIUM_NAMES, env);
}

/** What to tell someone who has no Chromium and whom we cannot install it for. */
export const INSTALL_HINT = 'install Chromium (Debian: apt-get install chromium) or set PRESENCE_CHROMIUM to a Chromium binary';
