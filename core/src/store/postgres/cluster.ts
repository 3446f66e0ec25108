// The cluster port on PostgreSQL: what servers sharing one database tell each other.
// - Events: every append NOTIFYs `presence_events` with "account_id:id" in the appending
//   statement (postgres-store.ts), so it is sent at commit. Each server LISTENs on one
//   dedicated connection and wakes the pump of that account's open streams; the events table
//   stays the truth. The driver re-establishes a lost LISTEN connection by itself and calls
//   `onlisten` each time it (re)subscribes: wake-ups sent meanwhile are lost, so every open
//   channel then reads the table again (resync).
// - Rate limits: per scope and id, the exact sliding log of the embedded limiter (the times of
//   the requests counted in the last window, at most `limit`), kept in `rate_logs` and
//   updated in one statement under the row's lock, so every server counts every request.
import postgres from 'postgres';
import type { ClusterPort, EventsWakeHandlers, SharedRateLimiter } from '../../cluster/cluster-port';
import type { RateDecision } from '../../ratelimit/sliding-window';

export const EVENTS_CHANNEL = 'presence_events';

export type PostgresCluster = ClusterPort & { close(): Promise<void> };

/** "account_id:id" as the append sent it; the account id may itself hold colons. */
export function parseEventsNotice(payload: string): { accountId: string; id: number } | null {
  const at = payload.lastIndexOf(':');
  if (at <= 0) return null;
  const id = Number(payload.slice(at + 1));
  return Number.isSafeInteger(id) ? { accountId: payload.slice(0, at), id } : null;
}

export async function createPostgresCluster({
  url,
  clock,
  max = 3,
}: {
  url: string;
  clock: { now(): number };
  /** Connections for the rate-limit statements (LISTEN takes one more of its own). */
  max?: number;
}): Promise<PostgresCluster> {
  const sql = postgres(url, { max, onnotice: () => undefined, connect_timeout: 10 });
  const handlers = new Set<EventsWakeHandlers>();
  const listening = await sql.listen(
    EVENTS_CHANNEL,
    (payload) => {
      const notice = parseEventsNotice(payload);
      if (notice) for (const h of handlers) h.wake(notice.accountId);
    },
    () => {
      for (const h of handlers) h.resync();
    },
  );

  function rateLimiter(scope: string, { limit, windowMs }: { limit: number; windowMs: number }): SharedRateLimiter {
    let lastSweep = clock.now();
    const decide = (times: number[], now: number, allowed: boolean): RateDecision => {
      const inWindow = times.filter((t) => t > now - windowMs);
      const oldest = inWindow.length > 0 ? Math.min(...inWindow) : null;
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - inWindow.length),
        resetS: oldest === null ? 0 : Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
      };
    };
    return {
      async hit(id) {
        const now = clock.now();
        const cutoff = now - windowMs;
        if (now - lastSweep >= windowMs) {
          // Idle ids are forgotten once a window, as the embedded limiter does.
          lastSweep = now;
          sql`DELETE FROM rate_logs WHERE scope = ${scope} AND last_at <= ${cutoff}`.catch(() => undefined);
        }
        // The window's times after dropping the expired ones; the request is counted (and
        // allowed) only while fewer than `limit` remain. `allowed` says which happened.
        const [row] = await sql<{ times: number[]; allowed: boolean }[]>`
          INSERT INTO rate_logs AS r (scope, id, times, last_at, allowed)
          VALUES (${scope}, ${id}, ARRAY[${now}::float8], ${now}, ${limit > 0})
          ON CONFLICT (scope, id) DO UPDATE SET
            times = CASE
              WHEN cardinality(ARRAY(SELECT t FROM unnest(r.times) t WHERE t > ${cutoff})) < ${limit}
              THEN ARRAY(SELECT t FROM unnest(r.times) t WHERE t > ${cutoff}) || ${now}::float8
              ELSE ARRAY(SELECT t FROM unnest(r.times) t WHERE t > ${cutoff}) END,
            allowed = cardinality(ARRAY(SELECT t FROM unnest(r.times) t WHERE t > ${cutoff})) < ${limit},
            last_at = greatest(r.last_at, ${now})
          RETURNING times, allowed`;
        return decide(row?.times ?? [], now, row?.allowed ?? false);
      },
      async peek(id) {
        const now = clock.now();
        const [row] = await sql<{ times: number[] }[]>`SELECT times FROM rate_logs WHERE scope = ${scope} AND id = ${id}`;
        const d = decide(row?.times ?? [], now, true);
        return { ...d, allowed: d.remaining > 0 };
      },
    };
  }

  return {
    eventsWake: {
      subscribe(h) {
        handlers.add(h);
        return () => handlers.delete(h);
      },
    },
    rateLimiter,
    async close() {
      handlers.clear();
      await listening.unlisten().catch(() => undefined);
      await sql.end({ timeout: 5 });
    },
  };
}
