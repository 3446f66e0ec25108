// Leader election among the servers on one database, for the background work that must run
// once per deployment (hold expiry, standing intents, recovery, the compactor, retention).
// The leader holds a session advisory lock on a connection of its own. Followers try to take
// it every `retryMs`: when the leader dies its connection drops, PostgreSQL releases the lock,
// and the next try wins, so a takeover comes within `retryMs` of the database noticing.
// `stop()` closes the connection, releasing the lock at once (graceful shutdown hands over).
//
// The leader also checks every `retryMs` that its session still holds the lock: a dropped
// and silently reconnected connection has lost it, and a failed check steps down at once.
// Two servers can both believe they lead for at most one period (the old leader learns of
// its loss at its next check), so the work it gates must stay safe when run twice at once —
// ours is: hold expiry and fires are compare-and-set on locked rows.
import postgres from 'postgres';

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

export type LeadershipOptions = {
  url: string;
  /** Names this server's session (application_name), so servers can count each other. */
  serverId: string;
  retryMs?: number;
  /** Called on every change, after the first try (true: this server now leads). */
  onChange?: (leader: boolean) => void;
  onError?: (e: unknown) => void;
};

export async function startLeadership({ url, serverId, retryMs = 2_000, onChange, onError }: LeadershipOptions): Promise<Leadership> {
  // One connection that lives as long as this server: the session the lock belongs to.
  const sql = postgres(url, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: 0,
    onnotice: () => undefined,
    connect_timeout: 5,
    connection: { application_name: `${APPLICATION}${serverId}`.slice(0, 63) },
  });
  let leader = false;
  let stopped = false;
  const set = (next: boolean) => {
    if (next === leader) return;
    leader = next;
    onChange?.(next);
  };

  async function attempt() {
    try {
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
      // Ending the session releases its advisory locks.
      await sql.end({ timeout: 2 });
    },
  };
}
