// docs/operations.md's recipe, followed line by line: the `sh` block under "Three built
// servers behind nginx" runs in bash from nothing (a clone of this commit) to three built
// servers on PostgreSQL behind the real nginx. What cannot run here stands in, and only that:
// paths move under a temporary root (/etc/presence, /opt/presence, …), ports to free ones,
// the database URL to a throwaway database; `systemctl` and `journalctl` are
// test/src/systemd-stand-in.ts, which reads the installed units as systemd does; `git clone`
// clones this repository at HEAD; `apt-get` and `useradd` only check. Needs the npm registry
// (or a warm cache) and nginx (npm test's pretest installs it); takes a few minutes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findNginx, NGINX_HINT } from '../../scripts/nginx';
import { call, removeDir, tempDir } from './harness';
import { freePort } from './nginx';
import { freshDatabaseEnv } from './test-database';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../..');
const STAND_IN = path.join(here, 'systemd-stand-in.ts');
/** tsx's loader by path: the stand-in runs from the recipe's directories, where `--import tsx` would not resolve. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** The recipe: the first `sh` block after the heading. */
function recipe(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const from = doc.indexOf('\n## Three built servers behind nginx\n');
  expect(from, 'docs/operations.md has the recipe').toBeGreaterThan(0);
  const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(from))?.[1];
  expect(block).toBeDefined();
  return block as string;
}

/** A 4-digit prefix P whose ports P1, P2, P3 are free (the recipe's 8801…8803 become them, instance names included). */
async function freePrefix(): Promise<string> {
  for (;;) {
    const prefix = String(2000 + Math.floor(Math.random() * 1200));
    const free = await Promise.all(
      [1, 2, 3].map(
        (i) =>
          new Promise<boolean>((resolve) => {
            const probe = createServer();
            probe.once('error', () => resolve(false));
            probe.listen(Number(`${prefix}${i}`), '127.0.0.1', () => probe.close(() => resolve(true)));
          }),
      ),
    );
    if (free.every(Boolean)) return prefix;
  }
}

describe('docs/operations.md, followed from nothing', () => {
  const root = realpathSync(tempDir('presence-recipe-'));
  const standIn = (args: string[], env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, ['--import', TSX, STAND_IN, ...args], { env, encoding: 'utf8', cwd: here });
  let env: NodeJS.ProcessEnv = {};

  afterAll(async () => {
    standIn(['stop-all'], env);
    removeDir(root);
  }, 120_000);

  it('three built servers on PostgreSQL behind nginx, serving the bootstrap key', async () => {
    const nginx = findNginx();
    if (!nginx) throw new Error(`no nginx: ${NGINX_HINT}`);
    const [lb, chain, prefix, database] = [await freePort(), await freePort(), await freePrefix(), await freshDatabaseEnv({ empty: true })];
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
    const moved = ['/etc/presence', '/etc/systemd/system', '/etc/nginx', '/opt/presence', '/var/lib/presence', '/var/log/nginx'];
    const map: [string, string, string][] = [
      ...moved.map((p): [string, string, string] => [`${p.replace(/\//g, '\\/')}(?=[/\\s'"]|$)`, 'gm', `${root}${p}`]),
      ['\\b8080\\b', 'g', String(lb)],
      ['\\b8545\\b', 'g', String(chain)],
      ['\\b880(?=[1-9])', 'g', prefix],
      ['^DATABASE_URL=.*$', 'm', `DATABASE_URL='${database.PRESENCE_DATABASE_URL}'`],
    ];
    for (const p of moved) mkdirSync(path.join(root, p === '/opt/presence' ? '/opt' : p), { recursive: true });
    mkdirSync(path.join(root, 'bin'), { recursive: true });
    for (const tool of ['systemctl', 'journalctl'])
      writeFileSync(path.join(root, 'bin', tool), `#!/bin/sh\nexec "${process.execPath}" --import "${TSX}" "${STAND_IN}" ${tool} "$@"\n`, {
        mode: 0o755,
      });
    env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|INIT_CWD$|PRESENCE_|NODE_ENV$|VITEST|TEST$)/i.test(k))),
      PATH: `${path.join(root, 'bin')}:${process.env.PATH}`,
      STAND_IN_ROOT: root,
      STAND_IN_MAP: JSON.stringify(map),
      STAND_IN_NGINX: nginx,
      npm_config_prefer_offline: 'true',
    };
    // The recipe in a file of its own, moved like the deploy files; the stand-ins around it are not.
    const steps = path.join(root, 'recipe.sh');
    writeFileSync(steps, recipe());
    expect(standIn(['rewrite', steps], env).status).toBe(0);
    const script = path.join(root, 'run.sh');
    writeFileSync(
      script,
      `set -euo pipefail
apt-get() { [ -x "${nginx}" ]; }
useradd() { :; }
nginx() { "${nginx}" -p "${root}/nginx" -c "${root}/etc/nginx/nginx.conf" -g "pid ${root}/run/nginx.pid; error_log ${root}/log/nginx.log;" "$@"; }
git() {
  if [ "$1" = clone ]; then
    command git clone -q --no-checkout "${ROOT}" "$3" && command git -C "$3" checkout -q --detach ${head}
    "${process.execPath}" --import "${TSX}" "${STAND_IN}" rewrite "$3"/deploy/nginx.conf "$3"/deploy/presence.env "$3"/deploy/systemd/*.service
  else command git "$@"; fi
}
mkdir -p "${root}/nginx" "${root}/run" "${root}/log"
. "${steps}"
`,
    );
    const r = spawnSync('bash', [script], { cwd: root, env, encoding: 'utf8', timeout: 900_000 });
    const logs = () => standIn(['journalctl', '-u', `presence-server@${prefix}1`], env).stdout;
    expect(r.status, `${r.stdout}\n${r.stderr}\n${logs()}`).toBe(0);

    // nginx answers from the servers, spread over all three.
    const url = `http://127.0.0.1:${lb}`;
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1) as string)).toHaveProperty('ok', true);
    const ids = new Set<string>();
    for (let i = 0; i < 9; i++) ids.add((await call(url, 'GET', '/v1/health')).json.server.id);
    // Each is the instance the recipe named for its port (presence-server@8801 → <host>-8801).
    expect([...ids].sort()).toEqual([1, 2, 3].map((i) => `${hostname()}-${prefix}${i}`));
    // The key the recipe's `cat …/bootstrap-keys.json` line showed works through nginx, on the database.
    const live = /"live": *"(prs_live_\w+)"/.exec(r.stdout)?.[1];
    expect(live, r.stdout).toBeDefined();
    const me = await call(url, 'GET', '/v1/presence/me', { key: live as string });
    expect(me.status, me.text).toBe(200);
    expect((await call(url, 'GET', '/v1/health')).json.store.kind).toBe('postgres');
    expect((await call(url, 'GET', '/metrics')).status).toBe(404);
  }, 1_200_000);
});
