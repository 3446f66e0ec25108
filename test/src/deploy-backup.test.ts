// The scheduled backup (deploy/presence-backup.mjs, what presence-backup.service runs) and its
// restore drill, as docs/operations.md tells them: on Debian's PostgreSQL, with the role and
// database made by the doc's own commands, a server writes, the backup runs three times keeping
// two, pg_dump never sees the password on its command line, a failed run leaves the backups
// be, and the newest dump restored into an empty database serves the same keys and records.
// On the embedded store the same script runs `presence-server backup`, and `restore` brings it
// back. Also deploy/wait-ready.mjs, the units' readiness check.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type DebianPostgres, debianPostgresBin, startDebianPostgres } from './debian-postgres';
import { call, removeDir, startTestServer, tempDir } from './harness';
import { childEnv, serverCli } from './process';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BACKUP = path.join(ROOT, 'deploy/presence-backup.mjs');
const WAIT_READY = path.join(ROOT, 'deploy/wait-ready.mjs');

const dirs: string[] = [];
const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
let pg: DebianPostgres | undefined;
afterAll(() => {
  pg?.stop();
  for (const d of dirs) removeDir(d);
});

/** Runs the backup script as the unit does: only the variables given (and PATH). */
const backup = (env: Record<string, string>) =>
  spawnSync(process.execPath, [BACKUP], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 120_000 });

/** docs/operations.md's commands that make the role and the database: the SQL of their `-c "…"`. */
function docsRoleAndDatabase(password: string): string[] {
  const doc = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const line = doc.split('\n').find((l) => l.includes('CREATE ROLE presence'));
  expect(line, 'docs/operations.md makes the role').toBeDefined();
  const statements = [...(line as string).matchAll(/-c "([^"]+)"/g)].map((m) => (m[1] as string).replace('$PASSWORD', password));
  expect(statements.length).toBe(2);
  return statements;
}

describe.skipIf(!debianPostgresBin())("deploy/presence-backup.mjs on PostgreSQL (Debian's; skipped where it is not installed)", () => {
  it('dumps while the database serves, keeps the newest BACKUP_KEEP, and the newest restores into an empty database that serves the same keys and records', async () => {
    pg = await startDebianPostgres();
    const password = `pw-${randomBytes(6).toString('hex')}`;
    for (const statement of docsRoleAndDatabase(password)) pg.sql(statement);
    const env = { PRESENCE_DATABASE_URL: pg.url('presence', password, 'presence'), PRESENCE_MASTER_KEY: randomBytes(32).toString('hex') };

    // A server on the database writes something.
    const s = await startTestServer({ dataDir: dir(), env });
    const keys = { live: s.live, test: s.test };
    const pin = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'pair:drill', note: 'before the backup' } });
    expect(pin.status, pin.text).toBe(200);

    // pg_dump as the unit finds it, through a wrapper that records its command line.
    const backups = dir();
    const argvLog = path.join(dir(), 'argv');
    const wrapper = path.join(dir(), 'pg_dump');
    writeFileSync(
      wrapper,
      `#!/bin/sh\necho "$@" >> ${argvLog}\nenv | grep -c '^PGPASSWORD=' >> ${argvLog}\nexec ${pg.bin}/pg_dump "$@"\n`,
      { mode: 0o755 },
    );
    const run = () => backup({ ...env, BACKUP_DIR: backups, BACKUP_KEEP: '2', BACKUP_PG_DUMP: wrapper });
    const outputs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = run();
      expect(r.status, r.stderr).toBe(0);
      outputs.push(r.stdout);
    }
    await s.close();
    const kept = readdirSync(backups).sort();
    expect(kept).toHaveLength(2);
    for (const n of kept) expect(n).toMatch(/^presence-\d{8}T\d{6}\.\d{3}Z\.dump$/);
    expect(outputs[2]).toMatch(/wrote .*\.dump \(\d+ bytes\); 2 kept, 1 removed/);
    const argv = readFileSync(argvLog, 'utf8');
    expect(argv).not.toContain(password);
    expect(argv).toContain('--format=custom');
    expect(argv.split('\n').filter((l) => l === '1')).toHaveLength(3); // the password reached it, by PGPASSWORD

    // A run that fails leaves what was there, and no partial file.
    const failed = backup({ ...env, BACKUP_DIR: backups, BACKUP_KEEP: '1', BACKUP_PG_DUMP: '/bin/false' });
    expect(failed.status).toBe(1);
    expect(failed.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^presence-backup: pg_dump failed .*earlier backups are untouched$/),
    ]);
    expect(readdirSync(backups).sort()).toEqual(kept);

    // The drill: the newest dump into an empty database, then a server on it.
    pg.sql('CREATE DATABASE presence_restored OWNER presence');
    const restoredUrl = pg.url('presence', password, 'presence_restored');
    const restored = spawnSync(
      path.join(pg.bin, 'pg_restore'),
      ['--exit-on-error', '--no-owner', `--dbname=${restoredUrl}`, path.join(backups, kept.at(-1) as string)],
      { encoding: 'utf8' },
    );
    expect(restored.status, restored.stderr).toBe(0);
    const again = await startTestServer({ dataDir: dir(), env: { ...env, PRESENCE_DATABASE_URL: restoredUrl }, keys });
    try {
      const memory = await call(again.url, 'GET', '/v1/memory', { key: keys.live });
      expect(memory.status, memory.text).toBe(200);
      expect([...memory.json.pinned, ...memory.json.fading].map((m: { key: string }) => m.key)).toContain('pair:drill');
    } finally {
      await again.close();
    }
  }, 180_000);
});

describe('deploy/presence-backup.mjs on the embedded store', () => {
  it('runs `presence-server backup` into a dated directory, and `restore` brings the install back', async () => {
    const data = dir();
    const s = await startTestServer({ dataDir: data });
    const keys = { live: s.live, test: s.test };
    expect((await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'pair:embedded-drill' } })).status).toBe(200);
    await s.close(); // in this process: a running server would be paused with the test
    const backups = dir();
    const r = backup({ PRESENCE_DATA_DIR: data, BACKUP_DIR: backups, BACKUP_SERVER_CLI: serverCli });
    expect(r.status, r.stderr).toBe(0);
    const [made] = readdirSync(backups);
    expect(made).toMatch(/^presence-\d{8}T\d{6}\.\d{3}Z$/);

    const into = path.join(dir(), 'restored');
    const restore = spawnSync(process.execPath, [serverCli, 'restore', path.join(backups, made as string)], {
      env: childEnv({ PRESENCE_DATA_DIR: into, PRESENCE_DATABASE_URL: undefined }),
      encoding: 'utf8',
    });
    expect(restore.status, restore.stderr).toBe(0);
    const again = await startTestServer({ dataDir: into, keys });
    try {
      const memory = await call(again.url, 'GET', '/v1/memory', { key: keys.live });
      expect([...memory.json.pinned, ...memory.json.fading].map((m: { key: string }) => m.key)).toContain('pair:embedded-drill');
    } finally {
      await again.close();
    }
  }, 120_000);

  it('`presence-server backup` with a database URL says to use pg_dump, before asking for anything else', () => {
    const r = spawnSync(process.execPath, [serverCli, 'backup', path.join(dir(), 'b')], {
      env: childEnv({ PRESENCE_DATABASE_URL: 'postgres://presence@127.0.0.1:1/presence', PRESENCE_MASTER_KEY: undefined }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/pg_dump/);
    expect(r.stderr).not.toMatch(/MASTER_KEY/);
  });
});

describe('deploy/wait-ready.mjs', () => {
  it('returns once the service answers (2xx, or a JSON-RPC chain id), and fails with one line when it never does', async () => {
    let asked = 0;
    const server = createServer((req, res) => {
      asked++;
      if (req.method === 'POST') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x7a69' }));
      } else {
        res.statusCode = asked < 3 ? 503 : 200;
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const wait = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [WAIT_READY, ...args], {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr?.on('data', (d) => {
          stderr += d;
        });
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    try {
      expect(await wait([`${url}/v1/health`])).toEqual({ code: 0, stderr: '' });
      expect(asked).toBe(3);
      expect(await wait(['--json-rpc', url])).toEqual({ code: 0, stderr: '' });
      server.close();
      const never = await wait([`${url}/v1/health`], { WAIT_READY_SECONDS: '0.5' });
      expect(never.code).toBe(1);
      expect(never.stderr).toBe(`wait-ready: ${url}/v1/health did not answer\n`);
    } finally {
      server.close();
    }
  });
});
