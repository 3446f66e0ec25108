#!/usr/bin/env node
// One scheduled backup of this host's Presence (deploy/systemd/presence-backup.service, run
// daily by presence-backup.timer), then retention. Plain Node, no dependencies.
// - With PRESENCE_DATABASE_URL: `pg_dump --format=custom` into BACKUP_DIR/presence-<UTC>.dump.
//   The URL's parts reach pg_dump as PG* variables, never on its command line, where any
//   user's `ps` would show the password. pg_dump must be at least the database's version.
// - Without: `presence-server backup` of PRESENCE_DATA_DIR into BACKUP_DIR/presence-<UTC>/
//   (the server paused for the copy; docs/operations.md, "Backups").
// A backup is written under a `.partial` name and renamed when whole, and older ones are
// removed only after that: a failed run leaves every earlier backup. BACKUP_KEEP (default 14)
// is how many are kept. Restoring: docs/operations.md, "Restore drill".
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const env = process.env;
const dir = env.BACKUP_DIR ?? '/var/lib/presence/backups';
const keep = Number(env.BACKUP_KEEP ?? 14);
const fail = (line) => {
  process.stderr.write(`presence-backup: ${line}\n`);
  process.exit(1);
};
if (!Number.isInteger(keep) || keep < 1) fail(`BACKUP_KEEP=${env.BACKUP_KEEP} is not a whole number of at least 1`);
mkdirSync(dir, { recursive: true, mode: 0o700 });

const stamp = new Date().toISOString().replace(/[-:]/g, ''); // 20261128T031500.123Z: sorts as it was made
const NAME = /^presence-\d{8}T\d{6}\.\d{3}Z(\.dump)?$/;

/** libpq's variable for each URL query parameter we pass on. */
const PG_PARAMETERS = {
  host: 'PGHOST',
  port: 'PGPORT',
  sslmode: 'PGSSLMODE',
  sslrootcert: 'PGSSLROOTCERT',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
};

function pgEnv(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    fail('PRESENCE_DATABASE_URL is not a URL');
  }
  const out = {
    PGHOST: decodeURIComponent(url.hostname),
    PGPORT: url.port || '5432',
    PGUSER: decodeURIComponent(url.username),
    PGPASSWORD: decodeURIComponent(url.password),
    PGDATABASE: decodeURIComponent(url.pathname.slice(1)),
  };
  for (const [name, value] of url.searchParams) {
    const variable = PG_PARAMETERS[name];
    if (!variable) fail(`PRESENCE_DATABASE_URL has ?${name}=, which this script does not pass to pg_dump`);
    out[variable] = value;
  }
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== ''));
}

let made;
if (env.PRESENCE_DATABASE_URL) {
  made = path.join(dir, `presence-${stamp}.dump`);
  const partial = `${made}.partial`;
  const { PRESENCE_DATABASE_URL, PRESENCE_MASTER_KEY, ...rest } = env;
  const r = spawnSync(env.BACKUP_PG_DUMP ?? 'pg_dump', ['--format=custom', `--file=${partial}`], {
    env: { ...rest, ...pgEnv(PRESENCE_DATABASE_URL) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) {
    rmSync(partial, { force: true });
    fail(`pg_dump failed (${r.error?.message ?? `exit ${r.status}`}); earlier backups are untouched`);
  }
  renameSync(partial, made);
} else {
  made = path.join(dir, `presence-${stamp}`);
  const partial = `${made}.partial`;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const cli = env.BACKUP_SERVER_CLI ? [env.BACKUP_SERVER_CLI] : ['--conditions=presence-built', path.join(here, '../server/dist/cli.js')];
  const r = spawnSync(process.execPath, [...cli, 'backup', partial], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    rmSync(partial, { recursive: true, force: true });
    fail(`presence-server backup failed (${r.error?.message ?? `exit ${r.status}`}); earlier backups are untouched`);
  }
  renameSync(partial, made);
}

const backups = readdirSync(dir)
  .filter((n) => NAME.test(n))
  .sort()
  .reverse();
const removed = backups.slice(keep);
for (const n of removed) rmSync(path.join(dir, n), { recursive: true, force: true });
const size = statSync(made).isDirectory() ? '' : ` (${statSync(made).size} bytes)`;
process.stdout.write(`presence-backup: wrote ${made}${size}; ${Math.min(backups.length, keep)} kept, ${removed.length} removed\n`);
