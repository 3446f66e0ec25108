// A deployment of many servers for end-to-end tests and the bench: one shared devnet (the
// real `presence-server devnet`), N real `presence-server` processes on one PostgreSQL
// database, each on 127.0.0.1 port 0 with a data directory of its own, and `stop()` that ends
// everything it started. The database is the caller's (a test's freshDatabaseEnv(), the
// bench's own cluster), so this module needs no test runner.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';

const require = createRequire(import.meta.url);
const serverDir = path.dirname(require.resolve('@presence/server/package.json'));
const serverMain = path.join(serverDir, 'src/main.ts');
const serverCli = path.join(serverDir, 'bin/presence-server.js');

export type Database = { PRESENCE_DATABASE_URL: string; PRESENCE_MASTER_KEY: string };

type Proc = {
  proc: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
};

function run(args: string[], env: NodeJS.ProcessEnv): Proc {
  const proc = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => {
    out += d;
  });
  proc.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return { proc, out: () => out, err: () => err, exited };
}

/** Resolves with the first match of `re` in the process's stdout; rejects if it exits first or takes too long. */
function waitFor(p: Proc, re: RegExp, what: string, timeoutMs = 60_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => done(new Error(`${what}: no ready line in ${timeoutMs} ms\n${p.out()}\n${p.err()}`)), timeoutMs);
    const check = () => {
      const m = re.exec(p.out());
      if (m) done(null, m);
    };
    const done = (e: Error | null, m?: RegExpExecArray) => {
      clearTimeout(t);
      p.proc.stdout.off('data', check);
      if (e) reject(e);
      else resolve(m as RegExpExecArray);
    };
    p.proc.stdout.on('data', check);
    void p.exited.then((code) => done(new Error(`${what} exited with ${code} before it was ready\n${p.out()}\n${p.err()}`)));
    check();
  });
}

const env = (overrides: Record<string, string | undefined>): NodeJS.ProcessEnv => {
  const e = { ...process.env, ...overrides };
  for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete e[k];
  return e;
};

/** A shared devnet on its own: `presence-server devnet --port 0` until stop(). */
export async function startSharedDevnet(): Promise<{ rpcUrl: string; stop(): Promise<void> }> {
  const devnet = run(['--import', 'tsx', serverCli, 'devnet', '--port', '0'], env({}));
  const stop = async () => {
    if (devnet.proc.exitCode === null && devnet.proc.signalCode === null) devnet.proc.kill('SIGTERM');
    await devnet.exited;
  };
  try {
    return { rpcUrl: (await waitFor(devnet, /^devnet: (http:\/\/\S+)$/m, 'presence-server devnet'))[1] as string, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

export type ClusterServer = {
  /** Its PRESENCE_SERVER_ID: s1, s2… */
  id: string;
  url: string;
  dataDir: string;
  /** Whether its process is still running. */
  alive(): boolean;
  stdout(): string;
  stderr(): string;
  /** kill -9: no shutdown, no goodbye; its database sessions drop with its sockets. */
  kill(): Promise<void>;
  /** SIGTERM: a graceful shutdown (leadership handed over at once, requests drained). */
  stop(): Promise<number | null>;
};

export type Cluster = {
  rpcUrl: string;
  database: Database;
  servers: ClusterServer[];
  /** The bootstrap account's keys (from the first server's start). */
  live: string;
  test: string;
  /** A direct connection to the database, for checks the API does not offer. */
  sql: postgres.Sql;
  /** Starts one more server on the same database and chain. */
  addServer(): Promise<ClusterServer>;
  /** The server whose /v1/health says it leads (waits until one does). */
  leader(timeoutMs?: number): Promise<ClusterServer>;
  /** Runs `presence-server ARGS` with the deployment's environment, to its exit. */
  cli(args: string[]): { status: number | null; stdout: string; stderr: string };
  /** `presence-server accounts create NAME`: answers the new account's admin key (throws when it printed none). */
  createAccount(name: string): string;
  stop(): Promise<void>;
};

export type ClusterOptions = {
  database: Database;
  servers?: number;
  /** More environment for every server (PRESENCE_RATE_LIMIT, …). */
  env?: Record<string, string>;
  /** Passed on to each server's output: set for debugging. */
  logLevel?: string;
};

export async function startCluster({ database, servers: count = 3, env: extra = {}, logLevel = 'warn' }: ClusterOptions): Promise<Cluster> {
  const dirs: string[] = [];
  const procs: Proc[] = [];
  const devnet = run(['--import', 'tsx', serverCli, 'devnet', '--port', '0'], env({}));
  procs.push(devnet);
  const stopAll = async () => {
    // Servers first (they may be mid-request on the chain), the devnet last.
    const servers = procs.filter((p) => p !== devnet);
    for (const p of servers) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGTERM');
    await Promise.all(servers.map((p) => p.exited));
    if (devnet.proc.exitCode === null && devnet.proc.signalCode === null) devnet.proc.kill('SIGTERM');
    await devnet.exited;
    for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  };
  try {
    const rpcUrl = (await waitFor(devnet, /^devnet: (http:\/\/\S+)$/m, 'presence-server devnet'))[1] as string;
    const base = {
      ...database,
      PRESENCE_CHAIN: 'devnet',
      PRESENCE_RPC_URL: rpcUrl,
      PRESENCE_HOST: '127.0.0.1',
      PRESENCE_PORT: '0',
      PRESENCE_LOG_LEVEL: logLevel,
      PRESENCE_LOG_FORMAT: 'json',
      ...extra,
    };
    let n = 0;
    const addServer = async (): Promise<ClusterServer> => {
      const id = `s${++n}`;
      const dataDir = mkdtempSync(path.join(tmpdir(), `presence-cluster-${id}-`));
      dirs.push(dataDir);
      const p = run(['--import', 'tsx', serverMain], env({ ...base, PRESENCE_DATA_DIR: dataDir, PRESENCE_SERVER_ID: id }));
      procs.push(p);
      const url = (await waitFor(p, /Presence listening on (http:\/\/\S+)/, `server ${id}`))[1] as string;
      const alive = () => p.proc.exitCode === null && p.proc.signalCode === null;
      return {
        id,
        url,
        dataDir,
        alive,
        stdout: p.out,
        stderr: p.err,
        async kill() {
          if (alive()) p.proc.kill('SIGKILL');
          await p.exited;
        },
        async stop() {
          if (alive()) p.proc.kill('SIGTERM');
          return p.exited;
        },
      };
    };
    // The first alone: it creates the bootstrap account and deploys the market; then the rest together.
    const first = await addServer();
    // Not a terminal: the keys are in the file only.
    const { live, test } = JSON.parse(readFileSync(path.join(first.dataDir, 'bootstrap-keys.json'), 'utf8')) as {
      live: string;
      test: string;
    };
    const servers = [first, ...(await Promise.all(Array.from({ length: count - 1 }, () => addServer())))];
    const sql = postgres(database.PRESENCE_DATABASE_URL, { max: 2, onnotice: () => undefined });
    const cliDir = () => {
      const d = mkdtempSync(path.join(tmpdir(), 'presence-cluster-cli-'));
      dirs.push(d);
      return d;
    };

    const health = async (s: ClusterServer) => {
      try {
        const r = await fetch(`${s.url}/v1/health`, { signal: AbortSignal.timeout(2000) });
        return (await r.json()) as { server?: { id: string; leader: boolean } };
      } catch {
        return null;
      }
    };
    const cluster: Cluster = {
      rpcUrl,
      database,
      servers,
      live,
      test,
      sql,
      async addServer() {
        const s = await addServer();
        servers.push(s);
        return s;
      },
      async leader(timeoutMs = 15_000) {
        const by = Date.now() + timeoutMs;
        for (;;) {
          for (const s of servers.filter((x) => x.alive())) if ((await health(s))?.server?.leader) return s;
          if (Date.now() > by) throw new Error('no server leads');
          await new Promise((r) => setTimeout(r, 100));
        }
      },
      cli(args) {
        const r = spawnSync(process.execPath, [serverCli, ...args], {
          env: env({ ...base, PRESENCE_DATA_DIR: cliDir() }),
          encoding: 'utf8',
          timeout: 60_000,
        });
        return { status: r.status, stdout: r.stdout, stderr: r.stderr };
      },
      createAccount(name) {
        const r = cluster.cli(['accounts', 'create', name]);
        const key = /^admin key (\S+)$/m.exec(r.stdout)?.[1];
        if (r.status !== 0 || !key) throw new Error(`accounts create ${name} exited ${r.status}: ${r.stderr}`);
        return key;
      },
      async stop() {
        await sql.end({ timeout: 5 });
        await stopAll();
      },
    };
    return cluster;
  } catch (e) {
    await stopAll();
    throw e;
  }
}
