// Where the operations tools the deployment tests run are on this machine: Prometheus's
// promtool (test/src/deploy-alerts.test.ts) and Debian's PostgreSQL, whose pg_dump matches its
// server (test/src/deploy-backup.test.ts, deploy-recipe.test.ts). `npm test`'s pretest
// (scripts/ensure-ops-tools.ts) installs Debian's packages when they are missing: both always
// agree on the binaries.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { findOnPath, isExecutableFile } from './chromium';

/** promtool on PATH, else Debian's /usr/bin/promtool; undefined when there is none. */
export function findPromtool(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return findOnPath(['promtool'], env) ?? (isExecutableFile('/usr/bin/promtool') ? '/usr/bin/promtool' : undefined);
}

export const PROMTOOL_HINT = 'install promtool (Debian: apt-get install prometheus)';

const PG_BASE = '/usr/lib/postgresql';

/** The bin directory of Debian's newest installed PostgreSQL that has a server and pg_dump, or undefined. */
export function findDebianPostgresBin(): string | undefined {
  if (!existsSync(PG_BASE)) return undefined;
  const versions = readdirSync(PG_BASE)
    .filter((v) => ['initdb', 'pg_ctl', 'pg_dump', 'pg_restore', 'psql'].every((t) => isExecutableFile(path.join(PG_BASE, v, 'bin', t))))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(PG_BASE, versions[0], 'bin') : undefined;
}

export const DEBIAN_POSTGRES_HINT = 'install PostgreSQL (Debian: apt-get install postgresql)';
