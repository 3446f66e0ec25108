// How `npm test` finds the browser for the extension's end-to-end test (scripts/chromium.ts,
// shared with that test) and what its pretest step (scripts/ensure-chromium.ts) does when
// there is none it may install: one line saying what to install, and a failing exit.
// Everything runs against fake binaries in temporary PATH directories; nothing is installed.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findChromium, findOnPath } from '../../scripts/chromium';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(path.join(tmpdir(), 'presence-chromium-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let dirs = 0;
/** A fresh directory holding the named files, executable unless listed in `plain`. */
function binDir(names: string[], plain: string[] = []): string {
  const dir = path.join(tmp, `bin${++dirs}`);
  mkdirSync(dir);
  for (const name of [...names, ...plain]) {
    const file = path.join(dir, name);
    writeFileSync(file, '#!/bin/sh\nexit 0\n');
    chmodSync(file, plain.includes(name) ? 0o644 : 0o755);
  }
  return dir;
}
const PATH = (...ds: string[]) => ds.join(path.delimiter);

describe('findChromium', () => {
  it('takes PRESENCE_CHROMIUM over anything on PATH', () => {
    const chosen = path.join(binDir(['my-chromium']), 'my-chromium');
    expect(findChromium({ PRESENCE_CHROMIUM: chosen, PATH: binDir(['chromium']) })).toBe(chosen);
  });

  it('refuses a PRESENCE_CHROMIUM that is not an executable file instead of falling back to PATH', () => {
    const env = { PATH: binDir(['chromium']) };
    expect(() => findChromium({ ...env, PRESENCE_CHROMIUM: path.join(tmp, 'nowhere') })).toThrow(
      /PRESENCE_CHROMIUM=.*nowhere is not an executable file/,
    );
    const notExecutable = path.join(binDir([], ['chromium']), 'chromium');
    expect(() => findChromium({ ...env, PRESENCE_CHROMIUM: notExecutable })).toThrow(/not an executable file/);
    expect(() => findChromium({ ...env, PRESENCE_CHROMIUM: tmp })).toThrow(/not an executable file/);
  });

  it('prefers chromium anywhere on PATH to chromium-browser, skipping files that are not executable', () => {
    const browserFirst = binDir(['chromium-browser'], ['chromium']);
    const chromiumLater = binDir(['chromium']);
    expect(findChromium({ PATH: PATH(browserFirst, chromiumLater) })).toBe(path.join(chromiumLater, 'chromium'));
    expect(findChromium({ PATH: PATH(browserFirst) })).toBe(path.join(browserFirst, 'chromium-browser'));
  });

  it('is undefined when there is none (an empty PATH entry is not the current directory)', () => {
    expect(findChromium({ PATH: PATH(binDir(['firefox']), '') })).toBeUndefined();
    expect(findChromium({})).toBeUndefined();
  });
});

describe('ensure-chromium (the pretest of npm test)', () => {
  /** Runs the script with exactly this environment: no apt-get, no sudo unless put on PATH. */
  const ensure = (env: Record<string, string>) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/ensure-chromium.ts')], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    return { status: r.status, lines: r.stderr.trim().split('\n') };
  };

  it('says which browser it found and succeeds', () => {
    const dir = binDir(['chromium-browser']);
    expect(ensure({ PATH: dir })).toEqual({ status: 0, lines: [`ensure-chromium: using ${path.join(dir, 'chromium-browser')}`] });
  });

  it('with no browser and no apt it may run, fails with one line saying what to install', () => {
    const r = ensure({ PATH: binDir(['firefox']) });
    expect(r.status).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      /^ensure-chromium: no Chromium \(PRESENCE_CHROMIUM, .*\) found: .*apt-get install chromium.*PRESENCE_CHROMIUM/,
    );
  });

  it('a PRESENCE_CHROMIUM pointing nowhere fails on one line without installing anything', () => {
    // apt-get is on PATH, so only this refusal keeps the run from trying to install.
    const r = ensure({ PATH: binDir(['apt-get']), PRESENCE_CHROMIUM: path.join(tmp, 'nowhere') });
    expect(r.status).toBe(1);
    expect(r.lines).toEqual([
      `ensure-chromium: PRESENCE_CHROMIUM=${path.join(tmp, 'nowhere')} is not an executable file; fix it or unset it`,
    ]);
  });

  // As root the script runs apt-get itself (elsewhere it would need password-less sudo). A
  // fake apt-get records how it was called and "installs" a chromium beside itself.
  it.runIf(process.getuid?.() === 0)(
    "as root without a browser, installs Debian's chromium with apt-get, non-interactively, saying so",
    () => {
      const dir = binDir([]);
      const log = path.join(dir, 'apt.log');
      const chromium = path.join(dir, 'chromium');
      const chmod = findOnPath(['chmod']);
      const env = findOnPath(['env']);
      if (!chmod || !env) throw new Error('chmod and env are needed on PATH for this test');
      symlinkSync(env, path.join(dir, 'env'));
      writeFileSync(
        path.join(dir, 'apt-get'),
        `#!/bin/sh\necho "$DEBIAN_FRONTEND $*" >> '${log}'\nif [ "$1" = install ]; then printf '#!/bin/sh\\n' > '${chromium}'; '${chmod}' 755 '${chromium}'; fi\n`,
      );
      chmodSync(path.join(dir, 'apt-get'), 0o755);

      const r = ensure({ PATH: dir });
      expect(r.status).toBe(0);
      expect(r.lines).toEqual([
        "ensure-chromium: no Chromium (PRESENCE_CHROMIUM, chromium or chromium-browser on PATH) found; installing Debian's chromium with apt-get (takes a minute or two)…",
        `ensure-chromium: installed ${chromium}`,
      ]);
      expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
        'noninteractive update -qq -o DPkg::Lock::Timeout=300',
        'noninteractive install -y -qq -o DPkg::Lock::Timeout=300 chromium',
      ]);
    },
  );

  it.runIf(process.getuid?.() === 0)('fails on one line when apt-get fails', () => {
    const dir = binDir([]);
    const env = findOnPath(['env']);
    if (!env) throw new Error('env is needed on PATH for this test');
    symlinkSync(env, path.join(dir, 'env'));
    writeFileSync(path.join(dir, 'apt-get'), '#!/bin/sh\nexit 100\n');
    chmodSync(path.join(dir, 'apt-get'), 0o755);
    const r = ensure({ PATH: dir });
    expect(r.status).toBe(1);
    expect(r.lines.at(-1)).toMatch(/^ensure-chromium: `apt-get update .*` failed \(exit 100\); install Chromium/);
  });
});
