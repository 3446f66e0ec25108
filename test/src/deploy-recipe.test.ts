// docs/operations.md's recipe, followed line by line: the `sh` block under "From a fresh
// Debian host" runs in bash from nothing (a clone of this commit) to three built servers on
// Debian's PostgreSQL behind the real nginx, inside Debian's own nginx.conf, over TLS, with a
// backup made by the backup unit and the bots' surface token in place. What cannot run here
// stands in, and only that: paths move under a temporary root (/etc/presence, /etc/nginx,
// /opt/presence, …), ports to free loopback ones; PostgreSQL is a throwaway cluster of
// Debian's (`runuser -u postgres -- psql` reaches it as its superuser); `systemctl` and
// `journalctl` are test/src/systemd-stand-in.ts, which reads the installed units as systemd
// does; `git clone` clones this repository at HEAD; `apt-get` only checks (and puts Debian's
// nginx.conf where the package would), `useradd` does nothing. Needs the npm registry (or a
// warm cache), nginx and PostgreSQL (npm test's pretest installs both); takes a few minutes.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findNginx, NGINX_HINT } from '../../scripts/nginx';
import { type DebianPostgres, startDebianPostgres } from './debian-postgres';
import { call, removeDir, tempDir } from './harness';
import { DEBIAN_CONF, freePort } from './nginx';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../..');
const STAND_IN = path.join(here, 'systemd-stand-in.ts');
/** tsx's loader by path: the stand-in runs from the recipe's directories, where `--import tsx` would not resolve. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** The recipe: the first `sh` block after the heading. */
function recipe(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const from = doc.indexOf('\n## From a fresh Debian host\n');
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
  let pg: DebianPostgres | undefined;

  afterAll(async () => {
    standIn(['stop-all'], env);
    pg?.stop();
    removeDir(root); // the clone with its node_modules: a while on a busy machine
  }, 300_000);

  it("three built servers on PostgreSQL behind nginx with TLS, a backup, and the bots' surface token", async () => {
    const nginx = findNginx();
    if (!nginx) throw new Error(`no nginx: ${NGINX_HINT}`);
    pg = await startDebianPostgres();
    const [lb, tls, redirect, chain, prefix] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePrefix()];
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
    const moved = ['/etc/presence', '/etc/systemd/system', '/etc/nginx', '/opt/presence', '/var/lib/presence', '/var/log/nginx'];
    const map: [string, string, string][] = [
      ...moved.map((p): [string, string, string] => [`${p.replace(/\//g, '\\/')}(?=[/\\s'"*]|$)`, 'gm', `${root}${p}`]),
      ['\\b8080\\b', 'g', String(lb)],
      ['\\b8545\\b', 'g', String(chain)],
      ['\\b880(?=[1-9])', 'g', prefix],
      ['\\b5432\\b', 'g', String(pg.port)],
      // Public ports become loopback ones; the IPv6 listeners go.
      ['listen 443 ', 'g', `listen 127.0.0.1:${tls} `],
      ['listen 80;', 'g', `listen 127.0.0.1:${redirect};`],
      ['^\\s*listen \\[::\\]:.*\\n', 'gm', ''],
      [':443\\b', 'g', `:${tls}`],
      ['^\\s*pid /run/nginx\\.pid;\\n', 'm', ''],
    ];
    for (const p of moved) mkdirSync(path.join(root, p === '/opt/presence' ? '/opt' : p), { recursive: true });
    // What Debian's nginx package installs: its nginx.conf (moved like the rest) and the folders it includes.
    for (const d of ['sites-available', 'sites-enabled', 'conf.d', 'modules-enabled'])
      mkdirSync(path.join(root, 'etc/nginx', d), { recursive: true });
    copyFileSync('/etc/nginx/mime.types', path.join(root, 'etc/nginx/mime.types'));
    writeFileSync(path.join(root, 'etc/nginx/nginx.conf'), readFileSync(DEBIAN_CONF, 'utf8'));
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
    expect(standIn(['rewrite', steps, path.join(root, 'etc/nginx/nginx.conf')], env).status).toBe(0);
    const script = path.join(root, 'run.sh');
    writeFileSync(
      script,
      `set -euo pipefail
apt-get() { [ -x "${nginx}" ] && [ -x "${pg.bin}/pg_dump" ]; }
useradd() { :; }
runuser() { shift 3; PGHOST=127.0.0.1 PGPORT=${pg.port} PGUSER=postgres "$@"; }
nginx() { "${nginx}" -p "${root}/nginx" -c "${root}/etc/nginx/nginx.conf" -g "pid ${root}/run/nginx.pid; error_log ${root}/log/nginx.log;" "$@"; }
git() {
  if [ "$1" = clone ]; then
    command git clone -q --no-checkout "${ROOT}" "$3" && command git -C "$3" checkout -q --detach ${head}
    "${process.execPath}" --import "${TSX}" "${STAND_IN}" rewrite "$3"/deploy/nginx/*.conf "$3"/deploy/*.env "$3"/deploy/systemd/*.service
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

    // Over TLS with the recipe's certificate, as its own last nginx line showed.
    const ca = readFileSync(path.join(root, 'etc/presence/tls/fullchain.pem'), 'utf8');
    const overTls = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: tls, path: '/v1/health', ca, servername: 'presence.example.com' }, (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(overTls.status, overTls.body).toBe(200);
    expect(r.stdout).toContain('"ok":true');
    // The backup unit's one run: a dump of the database.
    expect(readdirSync(path.join(root, 'var/lib/presence/backups'))).toEqual([expect.stringMatching(/^presence-.*\.dump$/)]);
    // The bots' surface token is in bots.env, and the servers take it.
    const surface = /^PRESENCE_SURFACE_TOKEN=(prs_surface_\S+)$/m.exec(readFileSync(path.join(root, 'etc/presence/bots.env'), 'utf8'))?.[1];
    expect(surface).toBeDefined();
    const asSurface = await call(url, 'GET', '/v1/presence/me', { key: surface as string });
    expect(asSurface.status, asSurface.text).toBe(403); // a surface token, known, on a route it may not use (an unknown one is 401)
    // The built bots (what presence-bots.service runs) start with plain Node and reach the
    // servers through nginx: `try` links a chat of its own with the bootstrap key.
    const tried = spawnSync(process.execPath, [path.join(root, 'opt/presence/bots/dist/main.js'), 'try'], {
      input: '/quit\n',
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH, PRESENCE_URL: url, PRESENCE_TOKEN: live as string },
    });
    expect(tried.status, tried.stderr).toBe(0);
    expect(tried.stdout).toMatch(/^you> \/link \w+/m);
  }, 1_200_000);
});
