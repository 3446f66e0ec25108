// Versioned, forward-only schema migrations: `migrations/NNNN_name.sql`, applied in order,
// each in its own transaction together with its row in `schema_migrations`. The whole run
// holds a session advisory lock, so servers starting together apply each migration once
// (the others wait, then find nothing to do). An applied file that was edited since is
// refused: a schema must be reachable by replaying the files, not by luck.
//
// On the server's pool the run takes one reserved connection (the lock's session) and hands
// it back with the lock released; given a URL it opens and closes a connection of its own.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type postgres from 'postgres';
import { type Database, openDatabase, reserveSession, sessionLost } from './database';

export type Migration = { version: number; name: string; sql: string; checksum: string };
export type AppliedMigration = { version: number; name: string; checksum: string; applied_at: Date };
export type MigrationStatus = {
  applied: AppliedMigration[];
  pending: Pick<Migration, 'version' | 'name'>[];
  /** Applied versions this code does not know (a newer Presence migrated the database). */
  unknown: number[];
};

/** `pg_advisory_lock` key: "presence" in ASCII, taken only by migrations. */
const MIGRATION_LOCK = 0x70726573656e6365n;

// Beside this module in the source; in the built package, dist/migrations/ (copied by tsup.config.ts) beside the bundle.
const dir = new URL('./migrations/', import.meta.url);

/** The migration files shipped with this code, in version order. */
export function loadMigrations(): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    const m = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!m) continue;
    const sql = readFileSync(new URL(file, dir), 'utf8');
    out.push({ version: Number(m[1]), name: m[2] as string, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  // Strictly increasing, gaps allowed: migrations are written on parallel branches, and a
  // lower number merged later is simply pending (each one touches its own tables).
  out.forEach((m, i) => {
    const before = out[i - 1];
    if (before && m.version <= before.version) throw new Error(`migration versions must increase: ${m.version} after ${before.version}`);
  });
  return out;
}

/** The pool `db` names (a URL: one connection, opened for this call and ended after it). */
async function withDatabase<T>(db: string | Database, work: (sql: Database) => Promise<T>): Promise<T> {
  if (typeof db !== 'string') return work(db);
  const sql = openDatabase(db, { max: 1 });
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

async function readApplied(sql: postgres.Sql | postgres.ReservedSql): Promise<AppliedMigration[]> {
  const [table] = await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`;
  if (!table?.present) return [];
  const rows = await sql`SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version`;
  return rows.map((r) => ({ version: Number(r.version), name: r.name, checksum: r.checksum, applied_at: r.applied_at }));
}

function compare(known: Migration[], applied: AppliedMigration[]): MigrationStatus {
  const byVersion = new Map(known.map((m) => [m.version, m]));
  for (const a of applied) {
    const m = byVersion.get(a.version);
    if (m && m.checksum !== a.checksum)
      throw new Error(`migration ${a.version}_${a.name} was changed after it was applied; add a new migration instead`);
  }
  const done = new Set(applied.map((a) => a.version));
  return {
    applied,
    pending: known.filter((m) => !done.has(m.version)).map(({ version, name }) => ({ version, name })),
    unknown: applied.filter((a) => !byVersion.has(a.version)).map((a) => a.version),
  };
}

/** What is applied and what would be (`presence-server migrate --status`). Changes nothing. */
export async function migrationStatus(db: string | Database): Promise<MigrationStatus> {
  return withDatabase(db, async (sql) => compare(loadMigrations(), await readApplied(sql)));
}

/** Applies the pending migrations; answers the versions this call applied. */
export async function migrate(db: string | Database): Promise<number[]> {
  const known = loadMigrations();
  return withDatabase(db, async (pool) => {
    // One session: the lock and every statement share it.
    const session = await reserveSession(pool);
    const sql = session.sql;
    let lost = false;
    try {
      await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK.toString()}::bigint)`;
      await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`;
      const status = compare(known, await readApplied(sql));
      const applied: number[] = [];
      for (const { version } of status.pending) {
        const m = known.find((k) => k.version === version) as Migration;
        // A reserved connection has no begin(): the transaction is spelled out.
        await sql`BEGIN`;
        try {
          await sql.unsafe(m.sql);
          await sql.unsafe('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
          await sql`COMMIT`;
        } catch (e) {
          await sql`ROLLBACK`.catch(() => undefined);
          throw e;
        }
        applied.push(version);
      }
      return applied;
    } catch (e) {
      lost = sessionLost(e);
      throw e;
    } finally {
      // The session goes back to the pool: the lock must not go with it. A session that is
      // gone took the lock with it.
      if (!lost) await sql`SELECT pg_advisory_unlock_all()`.catch(() => (lost = true));
      session.release(lost);
    }
  });
}
