// Leader election among the servers on one database, for the background work that must run
// once per deployment (hold expiry, standing intents, recovery, the compactor, retention).
// The leader holds a session advisory lock on a connection reserved from the server's pool
// for as long as it competes (one of PRESENCE_DATABASE_POOL's). Followers try to take
// it every `retryMs`: when the leader dies its connection drops, PostgreSQL releases the lock,
// and the next try wins, so a takeover comes within `retryMs` of the database noticing.
// `stop()` closes the connection, releasing the lock at once (graceful shutdown hands over).
//
// The leader also checks every `retryMs` that its session still holds the lock: a dropped
// and silently reconnected connection has lost it, and a failed check steps down at once.
// Two servers can both believe they lead for at most one period (the old leader learns of
// its loss at its next check), so the work it gates must stay safe when run twice at once —
// ours is: hold expiry and fires are compare-and-set on locked rows.
//
// A reserved connection that the database ended is not handed back (the pool already counts
// it closed and reconnects it for other work): the next try reserves a fresh one.
import { type DatabaseSource, openDatabase, reserveSession, type Session, sessionLost, useDatabase } from '../../store/postgres/database';

/** Advisory lock key: "leader" in ASCII, distinct from the migration lock's. */
const LEADER_LOCK = 0x6c6561646572n;
const APPLICATION = 'presence-server:';

export type Leadership = {
  isLeader(): boolean;
  /** How many other servers are connected to the database now (their leadership sessions). */
  peers(): Promise<number>;
  /** Steps down and releases the lock at once. Idempotent. */
  stop(): Promise<void>;
};

export type LeadershipOptions = DatabaseSource & {
  /** Names this server's session (application_name), so servers can count each other. */
  serverId: string;
  retryMs?: number;
  /** Called on every change, after the first try (true: this server now leads). */
  onChange?: (leader: boolean) => void;
  onError?: (e: unknown) => void;
};

export async function startLeadership({ serverId, retryMs = 2_000, onChange, onError, ...source }: LeadershipOptions): Promise<Leadership> {
  const pool = useDatabase('sql' in source ? { sql: source.sql } : { url: source.url }, 1);
  // The session the lock belongs to, named so that servers can count each other (peers()).
  let session: Session | null = null;
  const connect = async () => {
    if (session) return session.sql;
    const s = await reserveSession(pool.sql);
    try {
      await s.sql`SELECT set_config('application_name', ${`${APPLICATION}${serverId}`.slice(0, 63)}, false)`;
    } catch (e) {
      s.release(sessionLost(e));
      throw e;
    }
    session = s;
    return s.sql;
  };
  /** Lets the session go: back to the pool, or (lost) to the pool's reconnection. */
  const drop = async (lost: boolean) => {
    const s = session;
    session = null;
    if (!s) return;
    // Handed back whole, it must not keep the lock nor this server's name.
    if (!lost) await s.sql`SELECT pg_advisory_unlock_all(), set_config('application_name', '', false)`.catch(() => (lost = true));
    s.release(lost);
  };
  let leader = false;
  let stopped = false;
  const set = (next: boolean) => {
    if (next === leader) return;
    leader = next;
    onChange?.(next);
  };

  async function attempt() {
    try {
      const sql = await connect();
      if (leader) {
        const [row] = await sql`SELECT EXISTS (
          SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
            AND objid = ${Number(LEADER_LOCK & 0xffffffffn)}::bigint::oid AND classid = ${Number(LEADER_LOCK >> 32n)}::bigint::oid
        ) AS held`;
        if (row?.held) return;
        // Lost with a session that ended under us (the client reconnected): step down, and
        // compete again only from the next try, so a follower waiting on it gets its turn.
        set(false);
        return;
      }
      const [row] = await sql`SELECT pg_try_advisory_lock(${LEADER_LOCK.toString()}::bigint) AS won`;
      set(Boolean(row?.won));
    } catch (e) {
      set(false);
      // A lost session holds no lock any more; the next try reserves another.
      if (session && sessionLost(e)) await drop(true);
      onError?.(e);
    }
  }

  await attempt();
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => (stopped ? undefined : attempt()));
  }, retryMs);
  timer.unref();

  return {
    isLeader: () => leader && !stopped,
    async peers() {
      // A server killed outright has no session left: PostgreSQL ends it when the socket closes.
      const sql = await connect();
      const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE ${`${APPLICATION}%`} AND pid <> pg_backend_pid()`;
      return Number(row?.n ?? 0);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await running;
      leader = false;
      // The lock is released as the session goes back (or with it, when it was lost).
      await drop(false);
      await pool.end();
    },
  };
}

/**
 * The servers connected to the database at `url` now, by the ids their leadership sessions
 * carry (every server on a database holds one for as long as it runs): an operator command
 * that must not run beside servers (rotate-master-key) names them.
 */
export async function connectedServers(url: string): Promise<string[]> {
  const sql = openDatabase(url, { max: 1 });
  try {
    const rows = await sql`SELECT DISTINCT substr(application_name, ${APPLICATION.length + 1}) AS id FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE ${`${APPLICATION}%`} AND pid <> pg_backend_pid() ORDER BY id`;
    return rows.map((r) => String(r.id));
  } finally {
    await sql.end();
  }
}
