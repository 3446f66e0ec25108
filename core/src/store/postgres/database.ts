// A server's one PostgreSQL pool, and the connection options, written once. The store, the
// cluster messaging, the locks, leadership, the deployment book and the migrations all run
// on it; each also takes a URL instead (a test, a one-off command), and then opens a pool of
// its own with these same options and closes it with itself.
//
// Two kinds of work hold a connection for longer than a statement, and both take it from the
// pool: a session-level advisory lock (leadership for the server's life, migrations at start)
// on a reserved connection (`reserveSession`), and the cluster locks' transactions (bounded,
// see cluster/postgres/postgres-locks.ts). LISTEN is the one connection outside the pool: the
// driver opens it for `sql.listen` (cluster/postgres/cluster.ts).
import postgres from 'postgres';

export type Database = postgres.Sql;

/** Where a part gets its connections: the server's pool, or a URL to open a pool of its own. */
export type DatabaseSource = { sql: Database } | { url: string };

export type OpenDatabaseOptions = {
  max?: number;
  /** Told of every statement the pool sends (a test counting the database work behind a call). */
  onStatement?: (statement: string) => void;
};

export function openDatabase(url: string, { max = 10, onStatement }: OpenDatabaseOptions = {}): Database {
  return postgres(url, {
    max,
    ...(onStatement ? { debug: (_connection: number, statement: string) => onStatement(statement) } : {}),
    onnotice: () => undefined,
    connect_timeout: 10,
    // Seconds before a lost connection is opened again, after `retries` socket failures across
    // the pool (a refused or reset connection each; one that opens for a query starts the count
    // again). The driver's default is 10-20 s from the seventh on: a database restarting for a
    // few seconds refuses that many, and the server's requests then waited that long after the
    // database was back. Capped at 1 s, jittered so a deployment's servers do not come back at once.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1) * (0.5 + Math.random() / 2),
    // Connections live as long as the pool: a reserved session (leadership's advisory lock)
    // must not be recycled under its holder, which would lose the lock.
    idle_timeout: 0,
    max_lifetime: 0,
  });
}

/** The pool `source` names, and how to let it go: only a pool opened here is ended here. */
export function useDatabase(source: DatabaseSource, max?: number): { sql: Database; end(): Promise<void> } {
  if ('sql' in source) return { sql: source.sql, end: async () => undefined };
  const sql = openDatabase(source.url, max === undefined ? {} : { max });
  return { sql, end: () => sql.end({ timeout: 5 }) };
}

/**
 * The driver's failures that mean the connection itself is gone (closed, ended, a socket
 * error, the server shutting it down): a reserved session that saw one must not go back to
 * the pool, which already counts it closed and reconnects it when next needed. A statement
 * the server refused (any other SQL error) leaves the connection usable.
 */
export function sessionLost(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false; // not the driver's: our own check refused something
  if (e instanceof postgres.PostgresError) return code.startsWith('57P') || code.startsWith('08');
  return true; // CONNECTION_CLOSED, ECONNRESET…
}

/** A connection reserved from the pool for a session-level lock; `release` hands it back unless it was lost. */
export type Session = { sql: postgres.ReservedSql; release(lost?: boolean): void };

export async function reserveSession(sql: Database): Promise<Session> {
  const reserved = await sql.reserve();
  let released = false;
  return {
    sql: reserved,
    release(lost = false) {
      if (released) return;
      released = true;
      if (!lost) reserved.release();
    },
  };
}
