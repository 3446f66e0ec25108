// `presence-server`: run the server, and operator commands that work on the store directly.
//   presence-server serve                  runs the server (what `npm start` does), from the built dist/ with plain Node
//   presence-server accounts create NAME   creates an account and prints its first admin key
//   presence-server migrate [--status]     applies (or lists) the database's schema migrations
//   presence-server import-lowdb DATA_DIR  copies an embedded install into an empty database
//   presence-server devnet [--port N]      runs a devnet anvil for many servers to share
//   presence-server backup DIR / restore DIR  copies an embedded install (while it runs) / back
//   presence-server rotate-master-key      re-seals the secrets under PRESENCE_NEW_MASTER_KEY (master-key-rotation.ts)
//   presence-server surfaces create NAME   makes a surface token for a bot (shown once); list, revoke ID|NAME
// With PRESENCE_DATABASE_URL the commands work on the database, beside running servers (every
// write is a transaction there); without it on the data directory, which one process owns.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  createCore,
  createKeystore,
  isPresenceError,
  MasterKeyMismatch,
  makeTreePrivate,
  type SharedStore,
  type StoreWiring,
  systemClock,
} from '@presence/core';
import { createLowdbStore } from '@presence/core/lowdb';
import {
  createPostgresCluster,
  createPostgresStore,
  importLowdb,
  loadMigrations,
  type MigrationStatus,
  migrate,
  migrationStatus,
  openDatabase,
} from '@presence/core/postgres';
import { Command } from 'commander';
import { backupDataDir, restoreDataDir } from './backup';
import { type Config, ConfigError, invocationDir, loadConfig, loadDatabaseUrl } from './config';
import { lockHolder, takeDataDirLock } from './data-dir-lock';
import { runDevnet } from './devnet-command';
import { markImported, refuseImported } from './imported-marker';
import { rotateMasterKeyCommand } from './master-key-rotation';
import { databaseFailure, databaseLabel } from './open-store';
import { openSurfaceStore } from './open-surfaces';
import { refuseNewerSchema } from './schema-check';
import { serve } from './serve';
import { REFUSED_EXIT_CODE, StartRefused } from './start-refused';

const program = new Command('presence-server').description('Presence server and operator commands');

program
  .command('serve')
  .description(
    'run the server, configured by the PRESENCE_* environment like `npm start` (in the repository: from server/dist/, built by `npm run build`)',
  )
  .action(() => serve());

program
  .command('accounts')
  .description('manage accounts')
  .command('create')
  .argument('<name>', 'account name: lowercase letters, digits, "-" or "_"')
  .description('create an account and print its first admin key (shown once)')
  .action(async (name: string) => {
    const config = loadConfig();
    const url = config.PRESENCE_DATABASE_URL;
    if (url) {
      const db = await openOperatorDatabase(url);
      try {
        return await createAccount(db.wiring, config, name, `in the database at ${databaseLabel(url)}`);
      } finally {
        await db.close();
      }
    }
    const dataDir = config.PRESENCE_DATA_DIR;
    refuseImported(dataDir);
    const unlock = holdDataDir(dataDir);
    try {
      const store = await createLowdbStore({ dataDir });
      try {
        await createAccount({ store }, config, name, `data in ${dataDir}`);
      } finally {
        await store.close();
      }
    } finally {
      unlock();
    }
  });

/**
 * The database as an operator's one-off command uses it beside running servers: the store and
 * the cluster port (a shared store is served only with it: core/src/create-core.ts) on one
 * small pool of its own.
 */
async function openOperatorDatabase(url: string): Promise<{ wiring: StoreWiring & { store: SharedStore }; close(): Promise<void> }> {
  const sql = openDatabase(url, { max: 3 });
  try {
    const store = await createPostgresStore({ sql });
    const cluster = await createPostgresCluster({ sql, clock: systemClock });
    return {
      wiring: { store, cluster },
      async close() {
        await cluster.close();
        await store.close();
        await sql.end({ timeout: 5 });
      },
    };
  } catch (e) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw databaseFailure(url, e);
  }
}

/**
 * Takes the data directory for an operator's writes: refused (exit 3) while a server runs on it,
 * and held meanwhile, so a server started then refuses to start instead of undoing the writes.
 * Answers the release.
 */
function holdDataDir(dataDir: string): () => void {
  const holder = lockHolder(dataDir);
  if (holder !== null) {
    fail(
      `a Presence server (pid ${holder}) is running on ${dataDir}; stop it first (Ctrl-C in its terminal, or kill ${holder}), then run this again`,
      3,
    );
  }
  const unlock = takeDataDirLock(dataDir);
  try {
    if (existsSync(dataDir)) makeTreePrivate(dataDir);
  } catch (e) {
    unlock();
    throw e;
  }
  return unlock;
}

/**
 * Runs `work` on a core over the configured store: the database beside running servers, or the
 * data directory (which one process owns: refused while a server runs on it).
 */
async function withOperatorCore<T>(work: (core: ReturnType<typeof createCore>, where: string) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const url = config.PRESENCE_DATABASE_URL;
  if (url) {
    const db = await openOperatorDatabase(url);
    try {
      const surfaces = await openSurfaceStore(config, db.wiring.store);
      try {
        return await work(
          createCore({ ...db.wiring, surfaces, clock: systemClock, rateLimit: config.PRESENCE_RATE_LIMIT }),
          `in the database at ${databaseLabel(url)}`,
        );
      } finally {
        await surfaces.close();
      }
    } finally {
      await db.close();
    }
  }
  const dataDir = config.PRESENCE_DATA_DIR;
  const unlock = holdDataDir(dataDir);
  try {
    const store = await createLowdbStore({ dataDir });
    const surfaces = await openSurfaceStore(config, store);
    try {
      return await work(createCore({ store, surfaces, clock: systemClock, rateLimit: config.PRESENCE_RATE_LIMIT }), `data in ${dataDir}`);
    } finally {
      await surfaces.close();
      await store.close();
    }
  } finally {
    unlock();
  }
}

const surfacesCommand = program
  .command('surfaces')
  .description('manage surface tokens (one per bot: it redeems link codes and acts for the keys it linked)');

surfacesCommand
  .command('create')
  .argument('<name>', 'surface name: lowercase letters, digits, "-" or "_" (e.g. telegram-main)')
  .description('make a surface token and print it (shown once): give it to the bot as PRESENCE_SURFACE_TOKEN')
  .action(async (name: string) => {
    await withOperatorCore(async (core, where) => {
      const { surface, token } = await (core.surfaces as NonNullable<typeof core.surfaces>).create(name);
      process.stdout.write(
        `surface ${surface.id} ${surface.name} (${where})\nsurface token ${token}\n(shown once; set it as PRESENCE_SURFACE_TOKEN)\n`,
      );
    });
  });

surfacesCommand
  .command('list')
  .description('list surface tokens: id, name, last four characters, live links, state')
  .action(async () => {
    await withOperatorCore(async (core) => {
      const all = await (core.surfaces as NonNullable<typeof core.surfaces>).list();
      if (all.length === 0) process.stdout.write('no surface tokens\n');
      for (const s of all)
        process.stdout.write(
          `${s.id}  ${s.name.padEnd(20)}  …${s.last4}  ${String(s.links).padStart(6)} links  ${s.revoked_at ? `revoked ${s.revoked_at}` : `live since ${s.created_at}`}\n`,
        );
    });
  });

surfacesCommand
  .command('revoke')
  .argument('<surface>', 'its id (srf_…) or the name of a live surface')
  .description(
    'revoke a surface token at once: its streams close and its requests are 401 (the keys it linked stay, unusable by any other token)',
  )
  .action(async (which: string) => {
    await withOperatorCore(async (core) => {
      const s = await (core.surfaces as NonNullable<typeof core.surfaces>).revoke(which);
      process.stdout.write(`revoked surface ${s.id} ${s.name}\n`);
    });
  });

async function createAccount(wiring: StoreWiring, config: Config, name: string, where: string) {
  const core = createCore({ ...wiring, clock: systemClock, rateLimit: config.PRESENCE_RATE_LIMIT });
  const { account, admin } = await core.accounts.create(name);
  process.stdout.write(`account ${account} (${where})\nadmin key ${admin.secret}\n(shown once; it has every scope)\n`);
}

const migrationName = (m: { version: number; name: string }) => `${String(m.version).padStart(4, '0')}_${m.name}`;
const knownVersions = () => loadMigrations().map((m) => m.version);
const schemaVersion = (status: MigrationStatus) => Math.max(0, ...status.applied.map((a) => a.version));

program
  .command('migrate')
  .description('apply the pending schema migrations to the database (PRESENCE_DATABASE_URL); servers also apply them at start')
  .option('--status', 'list applied and pending migrations, change nothing')
  .action(async ({ status: onlyStatus }: { status?: boolean }) => {
    const url = loadDatabaseUrl();
    const where = databaseLabel(url);
    try {
      // A newer Presence migrated this database: applying ours beside its own is refused, as serve refuses.
      if (!onlyStatus) {
        refuseNewerSchema(await migrationStatus(url), knownVersions(), where);
        const applied = await migrate(url);
        process.stdout.write(applied.length > 0 ? `applied ${applied.length} migration(s) to ${where}\n` : `${where} is up to date\n`);
      }
      const status = await migrationStatus(url);
      const unknown = new Set(status.unknown);
      process.stdout.write(`schema version ${schemaVersion(status)} (${where})\n`);
      // Each version once: one a newer Presence applied is `unknown`, not also `applied`.
      for (const a of status.applied)
        if (!unknown.has(a.version)) process.stdout.write(`  applied  ${migrationName(a)}  ${a.applied_at.toISOString()}\n`);
      for (const p of status.pending) process.stdout.write(`  pending  ${migrationName(p)}\n`);
      for (const a of status.applied)
        if (unknown.has(a.version))
          process.stdout.write(`  unknown  ${migrationName(a)}  ${a.applied_at.toISOString()} (applied by a newer Presence)\n`);
    } catch (e) {
      if (e instanceof StartRefused) throw e;
      throw databaseFailure(url, e);
    }
  });

program
  .command('import-lowdb')
  .argument('<data_dir>', 'the embedded install to copy (its PRESENCE_DATA_DIR)')
  .description(
    'copy an embedded install into the empty database at PRESENCE_DATABASE_URL (its records are left as they were; it is marked imported)',
  )
  .action(async (dir: string) => {
    const config = loadConfig();
    const url = config.PRESENCE_DATABASE_URL;
    if (!url) throw new ConfigError('PRESENCE_DATABASE_URL is not set: import-lowdb copies into a PostgreSQL database');
    const dataDir = path.resolve(invocationDir(process.env), dir);
    if (!existsSync(path.join(dataDir, 'data'))) fail(`${dataDir} holds no Presence data (no data/ directory)`, 1);
    // The install's wallets and answers are sealed under its master key: the database's servers need the same one.
    const keyFile = path.join(dataDir, 'master.key');
    const masterKey = config.PRESENCE_MASTER_KEY as string; // loadConfig requires it with a database
    if (existsSync(keyFile) && readFileSync(keyFile, 'utf8').trim().toLowerCase() !== masterKey.toLowerCase()) {
      fail(
        `PRESENCE_MASTER_KEY is not the key that sealed ${dataDir}'s wallets: set it to the contents of ${keyFile}, here and for every server on the database`,
        2,
      );
    }
    const holder = lockHolder(dataDir);
    if (holder !== null) fail(`a Presence server (pid ${holder}) is running on ${dataDir}; stop it first, then run this again`, 3);
    const unlock = takeDataDirLock(dataDir);
    try {
      const counts = await importLowdb({ dataDir, url, keystore: createKeystore(Buffer.from(masterKey, 'hex')) }).catch((e: unknown) => {
        if (e instanceof MasterKeyMismatch)
          fail(
            `PRESENCE_MASTER_KEY is not ${dataDir}'s key (${e.message}): set it to the key that install ran with, here and for every server on the database; nothing was copied`,
            2,
          );
        throw isPresenceError(e) || (e instanceof Error && typeof (e as { code?: unknown }).code === 'string')
          ? databaseFailure(url, e)
          : e;
      });
      markImported(dataDir, databaseLabel(url));
      process.stdout.write(
        `copied ${dataDir} into ${databaseLabel(url)}:\n${Object.entries(counts)
          .map(([family, n]) => `  ${family.padEnd(12)} ${n}\n`)
          .join(
            '',
          )}start servers with this PRESENCE_DATABASE_URL and PRESENCE_MASTER_KEY; ${dataDir}'s records are left as they were, and it is marked imported (a start on it without PRESENCE_DATABASE_URL is refused)\n`,
      );
      if (existsSync(path.join(dataDir, 'devnet'))) process.stdout.write(`${DEVNET_NOTE(dataDir)}\n`);
    } finally {
      unlock();
    }
  });

program
  .command('rotate-master-key')
  .description(
    're-seal every wallet key and stored answer from PRESENCE_MASTER_KEY (or the data directory’s master.key) to PRESENCE_NEW_MASTER_KEY; stop every server first. Safe to run again after a crash midway',
  )
  .action(async () => {
    const line = await rotateMasterKeyCommand(loadConfig(), process.env);
    process.stdout.write(`${line}\n`);
  });

program
  .command('devnet')
  .description(
    'run a devnet chain (anvil, as the embedded devnet runs it) in the foreground for many servers to share; print its RPC URL. Servers attach with PRESENCE_CHAIN=devnet PRESENCE_RPC_URL=<url>; the first deploys the market',
  )
  .option('--port <port>', 'port on 127.0.0.1 (0: any free one)', '8545')
  .option('--state <file>', 'keep the chain in this file across restarts (anvil --state)')
  .action(async ({ port, state }: { port: string; state?: string }) => {
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) fail(`--port must be a port number, not ${JSON.stringify(port)}`, 2);
    const code = await runDevnet({
      port: Number(port),
      statePath: state ? path.resolve(invocationDir(process.env), state) : undefined,
      out: (line) => process.stdout.write(`${line}\n`),
    });
    process.exit(code);
  });

/** Said at import when the install ran the embedded devnet: balances live on a chain, and records are what moved. */
const DEVNET_NOTE = (dataDir: string) =>
  `devnet balances: this install's chain (its balances and market) stays in ${path.join(dataDir, 'devnet')}; a server that keeps PRESENCE_DATA_DIR=${dataDir} and the embedded devnet goes on with it, but on a shared devnet (PRESENCE_RPC_URL) the chain is new and these wallets' devnet balances start over. A real network is unaffected: its balances are on the network, reached with the same keys.`;

program
  .command('backup')
  .argument('<dir>', 'a new or empty directory for the copy')
  .description(
    'copy the embedded install at PRESENCE_DATA_DIR into DIR, consistently, also while its server runs (paused for the copy); with PRESENCE_DATABASE_URL use pg_dump instead',
  )
  .action((dir: string) => {
    // Said before the configuration is checked: with a database it would first ask for a
    // master key that this command has no use for.
    if (process.env.PRESENCE_DATABASE_URL) {
      fail('PRESENCE_DATABASE_URL is set: the records are in PostgreSQL; back them up with pg_dump (docs/operations.md, "Backups")', 2);
    }
    const config = loadConfig();
    const dest = path.resolve(invocationDir(process.env), dir);
    const { files, paused } = backupDataDir(config.PRESENCE_DATA_DIR, dest);
    process.stdout.write(
      `backed up ${config.PRESENCE_DATA_DIR} to ${dest} (${files} files${paused === null ? '' : `; server pid ${paused} paused for the copy`})\n`,
    );
  });

program
  .command('restore')
  .argument('<dir>', 'a directory `presence-server backup` wrote')
  .description('copy a backup into PRESENCE_DATA_DIR, which must be empty or absent, with no server running on it')
  .action((dir: string) => {
    const config = loadConfig();
    const from = path.resolve(invocationDir(process.env), dir);
    const files = restoreDataDir(from, config.PRESENCE_DATA_DIR);
    process.stdout.write(`restored ${from} into ${config.PRESENCE_DATA_DIR} (${files} files); start the server on it\n`);
  });

function fail(message: string, code: number): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

program.parseAsync().catch((e: unknown) => {
  if (e instanceof ConfigError) fail(e.message, 2);
  if (e instanceof StartRefused) fail(e.message, REFUSED_EXIT_CODE);
  if (isPresenceError(e)) fail(`${e.type} — ${e.detail}`, 1);
  fail((e as Error).message, 1);
});
