// Upgrades and backups (docs/operations.md): a server refuses a database migrated by a newer
// Presence, in one line, before touching it; a data directory imported into PostgreSQL is
// refused by a later start (and `accounts create`) without the database URL, and by a server
// with another master key (import checks the key and writes its check value); and
// `presence-server backup` copies an embedded install while its server takes writes from
// before the backup starts until it ends, and `restore` brings that copy back into a data
// directory a server starts on.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createKeystore, masterKeyCheckValue } from '@presence/core';
import { createLowdbStore } from '@presence/core/lowdb';
import { loadMigrations, postgresMasterKeyCheck } from '@presence/core/postgres';
import postgres from 'postgres';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { call, openStream, removeDir, startTestServer, tempDir } from './harness';
import { childEnv, serverCli, serverMain, spawnServer } from './process';
import { freshDatabaseEnv } from './test-database';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) removeDir(d);
});
const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};

const cli = (args: string[], env: Record<string, string | undefined>) =>
  spawnSync(process.execPath, [serverCli, ...args], { env: childEnv(env), encoding: 'utf8', timeout: 60_000 });
/** `npm start` with `env`, to its exit: the refusals below happen before it would listen. */
const start = (env: Record<string, string | undefined>) =>
  spawnSync(process.execPath, ['--import', 'tsx', serverMain], {
    env: childEnv({ PRESENCE_PORT: '0', PRESENCE_DATABASE_URL: undefined, PRESENCE_MASTER_KEY: undefined, ...env }),
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('upgrades', () => {
  it('a server refuses, in one line and before migrating anything, a database whose schema is newer than it knows', async () => {
    const database = await freshDatabaseEnv();
    const sql = postgres(database.PRESENCE_DATABASE_URL as string, { max: 1, onnotice: () => undefined });
    try {
      await sql`INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'from_a_newer_release', 'x')`;
      const before = await sql`SELECT version FROM schema_migrations ORDER BY version`;
      const r = start({ ...database, PRESENCE_DATA_DIR: dir() });
      const known = Math.max(...loadMigrations().map((m) => m.version));
      expect([r.status, r.stderr]).toEqual([
        3,
        expect.stringMatching(
          new RegExp(
            `^presence: the database at 127\\.0\\.0\\.1:\\d+/\\w+ has schema version 9999, newer than this server knows \\(${known}\\): it was migrated by a newer Presence; run that release, or restore the backup taken before the upgrade\\n$`,
          ),
        ),
      ]);
      expect(await sql`SELECT version FROM schema_migrations ORDER BY version`).toEqual(before);

      // `migrate` refuses likewise (it exited 0 with the newer migration listed twice); --status lists each version once.
      const migrated = cli(['migrate'], database);
      expect(migrated.status).not.toBe(0);
      expect(migrated.stderr).toMatch(/^error: the database at .* has schema version 9999, newer than this server knows .*\n$/);
      expect(migrated.stdout).toBe('');
      expect(await sql`SELECT version FROM schema_migrations ORDER BY version`).toEqual(before);
      const status = cli(['migrate', '--status'], database);
      expect(status.status).toBe(0);
      const versions = [...status.stdout.matchAll(/^ {2}\w+ {2}(\d{4})_/gm)].map((m) => m[1]);
      expect(versions).toEqual([...new Set(versions)]);
      expect(status.stdout).toMatch(/^ {2}unknown {2}9999_from_a_newer_release .*\(applied by a newer Presence\)$/m);
      expect(status.stdout).not.toMatch(/applied {2}9999/);
    } finally {
      await sql.end();
    }
  }, 90_000);
});

describe('a data directory imported into PostgreSQL', () => {
  it('is marked at import (and told devnet balances start over); a start or accounts create on it without the database URL is refused in one line', async () => {
    const dataDir = dir();
    const lowdb = await startTestServer({ dataDir });
    await lowdb.close();
    // As an install that ran the embedded devnet has (the chain's state lives there).
    mkdirSync(path.join(dataDir, 'devnet'), { recursive: true });
    const database = await freshDatabaseEnv({ empty: true });
    const masterKey = readFileSync(path.join(dataDir, 'master.key'), 'utf8').trim();
    const imported = cli(['import-lowdb', dataDir], { ...database, PRESENCE_MASTER_KEY: masterKey });
    expect([imported.status, imported.stderr]).toEqual([0, '']);
    expect(imported.stdout).toMatch(
      /on a shared devnet \(PRESENCE_RPC_URL\) the chain is new and these wallets' devnet balances start over/,
    );
    expect(imported.stdout).toMatch(/A real network is unaffected/);
    expect(existsSync(path.join(dataDir, 'imported.json'))).toBe(true);

    const refused = start({ PRESENCE_DATA_DIR: dataDir });
    const line = new RegExp(
      `^presence: ${dataDir} was copied into the database at 127\\.0\\.0\\.1:\\d+/\\w+ by import-lowdb \\(\\d{4}-[^)]+\\): set that PRESENCE_DATABASE_URL, or remove ${dataDir}/imported\\.json to serve this directory's older copy\\n$`,
    );
    expect([refused.status, refused.stderr]).toEqual([3, expect.stringMatching(line)]);
    const create = cli(['accounts', 'create', 'late'], { PRESENCE_DATA_DIR: dataDir, PRESENCE_DATABASE_URL: undefined });
    expect(create.status).toBe(3);
    expect(create.stderr).toMatch(/^error: .* was copied into the database at .* by import-lowdb/);
    // With the database's URL the same directory serves (it keeps only the lock and keys there).
    const onDatabase = await startTestServer({ dataDir, env: { ...database, PRESENCE_MASTER_KEY: masterKey }, keys: lowdb });
    expect((await call(onDatabase.url, 'GET', '/v1/presence/me', { key: lowdb.live })).status).toBe(200);
    await onDatabase.close();

    // A backup of it (or a restore of a backup taken before the refusal existed) says what to do instead.
    const backup = cli(['backup', dir()], { PRESENCE_DATA_DIR: dataDir, PRESENCE_DATABASE_URL: undefined });
    expect([backup.status, backup.stdout]).toEqual([3, '']);
    expect(backup.stderr).toMatch(
      /^error: .* was copied into the database at .*: its records live in PostgreSQL now; back up the database with pg_dump .*\n$/,
    );
    const old = dir();
    cpSync(dataDir, old, { recursive: true });
    writeFileSync(path.join(old, 'presence-backup.json'), '{}\n');
    const target = path.join(dir(), 'restored');
    const restore = cli(['restore', old], { PRESENCE_DATA_DIR: target, PRESENCE_DATABASE_URL: undefined });
    expect([restore.status, restore.stdout]).toEqual([3, '']);
    expect(restore.stderr).toMatch(
      /^error: .* is a backup of a directory that was copied into the database .*: no server starts on it; .*pg_dump/,
    );
    expect(existsSync(target)).toBe(false);
  }, 120_000);
});

describe('a data directory imported into PostgreSQL, then a server with another master key', () => {
  it('import refuses a wrong key; a start with another key stops with one line (exit 2), by the check value import wrote or, without one, by the wallets', async () => {
    const dataDir = dir();
    const install = await startTestServer({ dataDir });
    await install.close();
    const masterKey = readFileSync(path.join(dataDir, 'master.key'), 'utf8').trim();
    // A wallet sealed under the install's key, as the wallet layer seals it.
    const keystore = createKeystore(Buffer.from(masterKey, 'hex'));
    const pk = `0x${randomBytes(32).toString('hex')}` as const;
    const address = privateKeyToAccount(pk).address;
    const store = await createLowdbStore({ dataDir, keystore });
    await store.createWallet({
      account_id: 'default',
      address,
      key: keystore.seal('default', address, pk),
      created_at: new Date().toISOString(),
      funded: false,
    });
    await store.close();
    const database = await freshDatabaseEnv({ empty: true });
    const url = database.PRESENCE_DATABASE_URL as string;
    const other = randomBytes(32).toString('hex');
    const oneLine = (r: { stderr: string }, pattern: RegExp) => {
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(pattern)]);
      expect(r.stderr).not.toContain(other);
    };

    // Started with PRESENCE_MASTER_KEY (no master.key to compare with): the install's check value refuses another key.
    renameSync(path.join(dataDir, 'master.key'), path.join(dataDir, 'master.key.away'));
    const wrongImport = cli(['import-lowdb', dataDir], { ...database, PRESENCE_MASTER_KEY: other });
    expect(wrongImport.status).toBe(2);
    oneLine(wrongImport, /^error: PRESENCE_MASTER_KEY is not .*'s key \(it is not the key .*\): .*nothing was copied$/);
    renameSync(path.join(dataDir, 'master.key.away'), path.join(dataDir, 'master.key'));
    const imported = cli(['import-lowdb', dataDir], { ...database, PRESENCE_MASTER_KEY: masterKey });
    expect([imported.status, imported.stderr]).toEqual([0, '']);
    const check = postgresMasterKeyCheck(url);
    expect(await check.read()).toEqual({ check: masterKeyCheckValue(keystore) });

    const startWith = (key: string) => start({ ...database, PRESENCE_DATA_DIR: dir(), PRESENCE_MASTER_KEY: key });
    const refused = startWith(other);
    expect(refused.status).toBe(2);
    oneLine(refused, /^presence: invalid PRESENCE_MASTER_KEY \(value not shown: it is a secret\): it is not the key/);
    // Imported by an earlier version (no check value): the probe of the stored wallets refuses it, and stores nothing.
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      await sql`DELETE FROM master_key_check`;
      const probed = startWith(other);
      expect(probed.status).toBe(2);
      oneLine(probed, /^presence: invalid PRESENCE_MASTER_KEY .*: it does not open the wallets already stored$/);
      expect(await sql`SELECT check_value FROM master_key_check`).toHaveLength(0);
    } finally {
      await sql.end();
    }
    const right = await startTestServer({ dataDir: dir(), env: { ...database, PRESENCE_MASTER_KEY: masterKey }, keys: install });
    expect((await call(right.url, 'GET', '/v1/ready')).status).toBe(200);
    await right.close();
    expect(await check.read()).toEqual({ check: masterKeyCheckValue(keystore) });
    await check.close?.();
  }, 120_000);
});

describe('presence-server backup and restore (embedded store)', () => {
  it('copies the install while its server takes writes, none of which fails; the restored copy starts and holds every write answered before the backup', async () => {
    const dataDir = dir();
    // Writes go on for as long as the backup runs: no rate or memory cap may be what stops them.
    const server = await spawnServer(
      {
        PRESENCE_DATA_DIR: dataDir,
        PRESENCE_PORT: '0',
        PRESENCE_HOST: '127.0.0.1',
        PRESENCE_RATE_LIMIT: '1000000/60s',
        PRESENCE_MAX_MEMORY_PER_ACCOUNT: '1000000',
      },
      { timeoutMs: 90_000 },
    );
    // Keys are printed only to a terminal; piped, the server saves them to the file it names.
    const { live, test } = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8')) as { live: string; test: string };
    const dest = path.join(dir(), 'backup');
    const answered: string[] = [];
    const statuses: number[] = [];
    let answeredBefore: string[] | null = null;
    /** Writes answered while the backup process ran: after it was started, before it exited. */
    const answeredDuring: string[] = [];
    let backup: Promise<{ code: number | null; out: string }> | null = null;
    let backupExited = false;
    let inFlight = 0;
    let inFlightAtExit = 0;
    let next = 0;
    try {
      const writer = async () => {
        while (!backupExited) {
          const key = `topic:w-${next++}`;
          inFlight++;
          const r = await call(server.url, 'POST', '/v1/memory/pin', { key: live, body: { key, note: 'under backup' } });
          inFlight--;
          statuses.push(r.status);
          if (r.status === 200) {
            answered.push(key);
            if (backup && !backupExited) answeredDuring.push(key);
          }
          if (answered.length >= 40 && !backup) {
            answeredBefore = [...answered];
            backup = new Promise((resolve) => {
              const p = spawn(process.execPath, [serverCli, 'backup', dest], { env: childEnv({ PRESENCE_DATA_DIR: dataDir }) });
              let out = '';
              p.stdout.on('data', (d) => {
                out += d;
              });
              p.stderr.on('data', (d) => {
                out += d;
              });
              p.on('exit', () => {
                backupExited = true;
                inFlightAtExit = inFlight;
              });
              p.on('close', (code) => resolve({ code, out }));
            });
          }
        }
      };
      await Promise.all([writer(), writer(), writer(), writer()]);
      const done = await (backup as unknown as Promise<{ code: number | null; out: string }>);
      expect(done.code, done.out).toBe(0);
      expect(done.out).toMatch(new RegExp(`^backed up ${dataDir} to ${dest} \\(\\d+ files; server pid \\d+ paused for the copy\\)\\n$`));
      expect(
        statuses.every((s) => s === 200),
        JSON.stringify(statuses.filter((s) => s !== 200)),
      ).toBe(true);
      // The writes overlapped the whole backup: some were answered while it ran, and the
      // writers, each sending its next write as soon as the last is answered, still had
      // writes waiting when it ended.
      expect(answeredDuring.length).toBeGreaterThan(0);
      expect(inFlightAtExit).toBeGreaterThan(0);
      expect(existsSync(path.join(dest, 'server.pid'))).toBe(false);
    } finally {
      server.proc.kill('SIGTERM');
      await server.exited;
    }

    const restored = path.join(dir(), 'restored');
    const r = cli(['restore', dest], { PRESENCE_DATA_DIR: restored });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(cli(['restore', dest], { PRESENCE_DATA_DIR: restored }).status).toBe(3); // not into a data directory in use
    const back = await startTestServer({ dataDir: restored, keys: { live, test } });
    try {
      const memory = await call(back.url, 'GET', '/v1/memory', { key: live });
      expect(memory.status).toBe(200);
      const kept = [...memory.json.pinned, ...memory.json.fading].map((m: { key: string }) => m.key);
      // Everything answered before the backup began is in it; nothing in it was never sent.
      expect(kept).toEqual(expect.arrayContaining(answeredBefore ?? ['(no backup)']));
      const attempted = new Set(Array.from({ length: next }, (_, i) => `topic:w-${i}`));
      expect(kept.filter((k: string) => !attempted.has(k))).toEqual([]);
      // The events log came whole: ids from 1 with no gap, each a pin that was sent.
      const stream = openStream(back.url, '/v1/events?last_event_id=0', live);
      try {
        await stream.until(() => stream.frames.filter((f) => f.event === 'memory').length >= (answeredBefore?.length ?? 1));
        const ids = stream.frames.filter((f) => f.id).map((f) => Number(f.id));
        expect(ids).toEqual(ids.map((_, i) => (ids[0] as number) + i));
        expect(stream.frames.filter((f) => f.event === 'memory' && !attempted.has(f.data.key))).toEqual([]);
      } finally {
        await stream.close();
      }
    } finally {
      await back.close();
    }
  }, 240_000);
});
