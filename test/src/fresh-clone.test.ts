// The first hour, as a newcomer lives it: clone the repository (its committed HEAD), `npm
// install`, `npm start` at the root with nothing set but the port, then the README's own lines
// — the KEY line, a curl, `npx presence-server accounts create` — typed at the same root. The
// lines are read out of README.md, so the test fails when the README and the code drift apart.
// Needs the npm registry (or a warm npm cache) and git; takes a few minutes, mostly the install.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from './harness';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A newcomer's shell: none of the variables npm, vitest or an earlier Presence set for us. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|INIT_CWD$|PRESENCE_|NODE_ENV$|VITEST|TEST$)/i.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string, env = cleanEnv(), timeout = 60_000) {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

/** The README line that starts with `prefix` (a trailing `# comment` cut off). */
function readmeLine(readme: string, prefix: string): string {
  const line = readme.split('\n').find((l) => l.startsWith(prefix));
  if (!line) throw new Error(`README.md has no line starting ${JSON.stringify(prefix)}`);
  return line.replace(/\s+#.*$/, '');
}

describe('a fresh clone works as the README says', () => {
  const work = realpathSync(tempDir('presence-clone-'));
  const clone = path.join(work, 'presence');
  let server: ChildProcess | null = null;
  // 'close', not 'exit': npm exits on the signal at once, while the server it started (which
  // shares its stdout) is still shutting down.
  let serverClosed: Promise<void> = Promise.resolve();

  /** Stops `npm start` and everything under it (npm, sh, node share its process group). */
  async function stopServer() {
    const pid = server?.pid;
    if (!server || !pid) return;
    server = null;
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-pid, s);
      } catch {
        // the group is gone
      }
    };
    signal('SIGTERM');
    const forced = setTimeout(() => signal('SIGKILL'), 20_000);
    await serverClosed;
    clearTimeout(forced);
  }

  afterAll(async () => {
    await stopServer();
    removeDir(work); // node_modules: it takes a while
  }, 300_000);

  it('npm install, npm start, then the README lines at the root: the key works, the CLI refuses while the server runs', async () => {
    const repo = run('git', ['rev-parse', '--show-toplevel'], here).stdout.trim();
    const head = run('git', ['rev-parse', 'HEAD'], repo).stdout.trim();
    expect(head, 'the tests must run inside a git checkout').toMatch(/^[0-9a-f]{40}$/);
    expect(run('git', ['clone', '-q', '--no-checkout', repo, clone], work).status).toBe(0);
    expect(run('git', ['checkout', '-q', '--detach', head], clone).status).toBe(0);

    const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], clone, cleanEnv(), 600_000);
    expect(install.status, install.stderr).toBe(0);
    // No engine warnings: every dependency supports the Node versions we claim.
    expect(install.stderr).not.toContain('EBADENGINE');
    // No install script left unreviewed: package.json's allowScripts covers every one (npm 11
    // warns of the others, and a later npm blocks them).
    expect(install.stderr).not.toContain('install-scripts');
    // The install leaves the clone as it was: the lockfile is complete (no platform's optional
    // packages to add) and every data directory a start or the recipe makes is ignored.
    expect(run('git', ['status', '--porcelain'], clone).stdout).toBe('');

    // A bad setting: our one line; with --silent, nothing of npm's after it.
    const bad = run('npm', ['start', '--silent'], clone, cleanEnv({ PRESENCE_PORT: 'eighty' }));
    expect(bad.status).toBe(2);
    // (npm warnings about this machine's own npm configuration aside.)
    expect(
      bad.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('npm warn ')),
    ).toEqual(['presence: invalid PRESENCE_PORT="eighty": a port number: digits only, 0-65535']);

    const port = await freePort();
    const proc = spawn('npm', ['start'], { cwd: clone, env: cleanEnv({ PRESENCE_PORT: String(port) }), detached: true });
    server = proc;
    let out = '';
    let err = '';
    proc.stdout?.on('data', (d) => {
      out += d;
    });
    proc.stderr?.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
    serverClosed = new Promise((r) => proc.on('close', () => r()));
    const ready = `Presence listening on http://127.0.0.1:${port}`;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line after 120 s:\n${out}\n${err}`)), 120_000);
      const check = () => {
        if (!out.includes(ready)) return;
        clearTimeout(timer);
        resolve();
      };
      proc.stdout?.on('data', check);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited with ${code}:\n${out}\n${err}`));
      });
    });
    const dataDir = path.join(clone, '.presence');
    expect(out).toContain(`${ready} (data in ${dataDir})`);
    expect(existsSync(path.join(clone, 'server', '.presence'))).toBe(false);
    expect(run('git', ['status', '--porcelain'], clone).stdout, 'the data directory is ignored').toBe('');

    const readme = readFileSync(path.join(clone, 'README.md'), 'utf8');
    const key = readmeLine(readme, 'KEY=$(');
    const header = readmeLine(readme, 'H=');
    const curl = readmeLine(readme, 'curl -s -H "$H" localhost:8787/v1/presence/me').replace('localhost:8787', `localhost:${port}`);
    const walk = run('bash', ['-c', `set -euo pipefail\n${key}\n${header}\n${curl} -w '\\n%{http_code}'`], clone);
    expect(walk.status, walk.stderr).toBe(0);
    const lines = walk.stdout.trim().split('\n');
    expect(lines.at(-1), walk.stdout).toBe('200');
    expect(JSON.parse(lines.slice(0, -1).join('\n'))).toHaveProperty('mode', 'live');
    // The key the README read is the one the server saved; stdout is not a terminal here, so it
    // was not printed (a line names the file instead).
    const live = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8')).live as string;
    expect(out).not.toContain(live);
    expect(out).toContain(`saved to ${path.join(dataDir, 'bootstrap-keys.json')}`);

    const create = /`(npx presence-server accounts create [\w-]+)`/.exec(readme)?.[1];
    expect(create, 'README.md names the accounts command').toBeDefined();
    const refused = run('bash', ['-c', create as string], clone);
    const pid = readFileSync(path.join(dataDir, 'server.pid'), 'utf8').trim();
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain(`a Presence server (pid ${pid}) is running on ${dataDir}; stop it first`);
    expect(refused.stdout).not.toMatch(/prs_live_/);

    // Ctrl-C's clean stop releases the data directory.
    await stopServer();
    expect(out).toMatch(/SIG(TERM|INT), shutting down/);
    expect(existsSync(path.join(dataDir, 'server.pid'))).toBe(false);
  }, 900_000);
});
