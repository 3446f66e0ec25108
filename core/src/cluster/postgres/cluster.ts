// The cluster port on PostgreSQL: what servers sharing one database tell each other.
// - Events: every append NOTIFYs `presence_events` with "account_id:id" in the appending
//   statement (store/postgres/events-rows.ts), so it is sent at commit. Each server LISTENs on
//   one dedicated connection and wakes the pump of that account's open streams; the events
//   table stays the truth. The driver re-establishes a lost LISTEN connection by itself and
//   calls `onlisten` each time it (re)subscribes: wake-ups sent meanwhile are lost, so every
//   open channel then reads the table again (resync).
// - Key changes: an update of a key's record NOTIFYs `presence_keys` with its id at commit
//   (store/postgres/keys-rows.ts updateKey); every server's key cache drops it
//   (keys/key-cache.ts), and forgets every key when the LISTEN connection was re-established,
//   and the streams opened with that key are looked at again
//   (server/src/http/stream-recheck.ts). A surface token's revocation NOTIFYs
//   `presence_surfaces` likewise: its streams close on every server.
// - Failure budgets (failed authentications per address): counted in the shared window, and
//   asked about from memory; a full window is announced on `presence_rate_blocks`
//   (failure-budgets.ts).
// - The per-key request window: from each server's memory, written in batches
//   (request-rates.ts), so a request costs no statement of its own.
// - Other rate limits: per scope and id, the exact sliding log of the embedded limiter (the times of
//   the requests counted in the last window, at most `limit`), kept in `rate_logs` and
//   updated in one statement under the row's lock, so every server counts every request.
//   Limits above EXACT_MAX per window (benchmarks, "unlimited" settings) would make that row
//   large; they use two fixed buckets instead (`rate_buckets`: the current count plus the
//   previous one weighted by the share of it still inside the window), approximate and O(1).

import type { RateDecision } from '../../ratelimit/sliding-window';
import { ACCOUNTS_CHANNEL, EVENTS_CHANNEL, KEYS_CHANNEL, LINKS_CHANNEL, SURFACES_CHANNEL } from '../../store/postgres/channels';
import { type Database, type DatabaseSource, useDatabase } from '../../store/postgres/database';
import { toStoreError } from '../../store/postgres/database-error';
import { unitOfWorkOn } from '../../store/postgres/unit-of-work';
import type { ClusterPort, EventsWakeHandlers, KeyChangeHandlers, SharedRateLimiter } from '../cluster-port';
import { BLOCKS_CHANNEL, createFailureBudgets } from './failure-budgets';
import { createRequestRates, type RequestRates } from './request-rates';

export { EVENTS_CHANNEL } from '../../store/postgres/channels';

/** Up to this many requests per window a limit is kept exactly (a log of times). */
export const EXACT_MAX = 1_000;

export type PostgresCluster = ClusterPort & { close(): Promise<void> };

/** The server ended the connection (class 57P: terminated, shut down): the statement did not run. */
const connectionLost = (e: unknown) => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('57P');
};

/** "account_id:id" as the append sent it; the account id may itself hold colons. */
export function parseEventsNotice(payload: string): { accountId: string; id: number } | null {
  const at = payload.lastIndexOf(':');
  if (at <= 0) return null;
  const id = Number(payload.slice(at + 1));
  return Number.isSafeInteger(id) ? { accountId: payload.slice(0, at), id } : null;
}

/**
 * A channel whose notices name what changed (a key id, an account id), told to the handlers
 * subscribed; a re-established listening connection tells them to forget everything. On the
 * same LISTEN connection as the events (the driver keeps one for all channels).
 */
async function changesOn(sql: Database, channel: string) {
  const heard = new Set<KeyChangeHandlers>();
  const listening = await sql.listen(
    channel,
    (id) => {
      for (const h of heard) h.changed(id);
    },
    () => {
      for (const h of heard) h.resync();
    },
  );
  return {
    listening,
    heard,
    subscribe(h: KeyChangeHandlers) {
      heard.add(h);
      return () => heard.delete(h);
    },
  };
}

export async function createPostgresCluster({
  clock,
  max = 3,
  onError = () => undefined,
  requestSyncMs,
  ...source
}: DatabaseSource & {
  /** How long admitted requests may wait to be written when no commit carries them (100 ms). */
  requestSyncMs?: number;
  clock: { now(): number };
  /** A background read failed (the standing blocks, after a reconnection). */
  onError?: (e: unknown) => void;
  /** With a URL: connections for the rate-limit statements (LISTEN takes one more of its own). */
  max?: number;
}): Promise<PostgresCluster> {
  const pool = useDatabase(source, max);
  const sql = pool.sql;
  const handlers = new Set<EventsWakeHandlers>();
  const budgets = createFailureBudgets(sql, clock, onError);
  const requestRates: RequestRates[] = [];
  const listeningBlocks = await sql.listen(
    BLOCKS_CHANNEL,
    (payload) => budgets.heard(payload),
    () => budgets.resync(),
  );
  const keyChanges = await changesOn(sql, KEYS_CHANNEL);
  const accountChanges = await changesOn(sql, ACCOUNTS_CHANNEL);
  const linkChanges = await changesOn(sql, LINKS_CHANNEL);
  const surfaceChanges = await changesOn(sql, SURFACES_CHANNEL);
  const changeChannels = [keyChanges, accountChanges, linkChanges, surfaceChanges];
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

  function bucketLimiter(scope: string, { limit, windowMs }: { limit: number; windowMs: number }): SharedRateLimiter {
    const at = (now: number) => {
      const bucket = Math.floor(now / windowMs) * windowMs;
      return { bucket, weight: 1 - (now - bucket) / windowMs, resetS: Math.max(1, Math.ceil((bucket + windowMs - now) / 1000)) };
    };
    let lastSweep = clock.now();
    return {
      async hit(id) {
        const now = clock.now();
        const { bucket, weight, resetS } = at(now);
        if (now - lastSweep >= windowMs) {
          lastSweep = now;
          sql`DELETE FROM rate_buckets WHERE scope = ${scope} AND bucket_start < ${bucket - windowMs}`.catch(() => undefined);
        }
        // What the row holds once rolled forward to this bucket, before this request.
        const prev = sql`(CASE WHEN r.bucket_start = ${bucket} THEN r.prev WHEN r.bucket_start = ${bucket - windowMs} THEN r.cur ELSE 0 END)`;
        const cur = sql`(CASE WHEN r.bucket_start = ${bucket} THEN r.cur ELSE 0 END)`;
        const estimate = sql`(${prev} * ${weight}::float8 + ${cur})`;
        const [row] = await sql<{ cur: string; prev: string; allowed: boolean }[]>`
          INSERT INTO rate_buckets AS r (scope, id, bucket_start, cur, prev, allowed)
          VALUES (${scope}, ${id}, ${bucket}, 1, 0, true)
          ON CONFLICT (scope, id) DO UPDATE SET
            prev = ${prev},
            cur = ${cur} + CASE WHEN ${estimate} < ${limit} THEN 1 ELSE 0 END,
            allowed = ${estimate} < ${limit},
            bucket_start = ${bucket}
          RETURNING cur, prev, allowed`;
        const used = Math.ceil(Number(row?.prev ?? 0) * weight + Number(row?.cur ?? 0));
        return { allowed: row?.allowed ?? false, limit, remaining: Math.max(0, limit - used), resetS };
      },
      async peek(id) {
        const now = clock.now();
        const { bucket, weight, resetS } = at(now);
        const [row] = await sql<{ bucket_start: number; cur: string; prev: string }[]>`
          SELECT bucket_start, cur, prev FROM rate_buckets WHERE scope = ${scope} AND id = ${id}`;
        const cur = row?.bucket_start === bucket ? Number(row.cur) : 0;
        const prev = row?.bucket_start === bucket ? Number(row.prev) : row?.bucket_start === bucket - windowMs ? Number(row.cur) : 0;
        const used = Math.ceil(prev * weight + cur);
        return { allowed: used < limit, limit, remaining: Math.max(0, limit - used), resetS: used > 0 ? resetS : 0 };
      },
    };
  }

  function rateLimiter(scope: string, opts: { limit: number; windowMs: number }): SharedRateLimiter {
    const l = opts.limit > EXACT_MAX ? bucketLimiter(scope, opts) : logLimiter(scope, opts);
    // A database away is 503 store_unavailable here too, as for every store operation.
    const mapped =
      (op: 'hit' | 'peek') =>
      async (id: string): Promise<RateDecision> => {
        try {
          return await l[op](id);
        } catch (e) {
          // A pooled connection the server ended (a restart, a terminated backend) fails its
          // next statement before running it: try once more on a fresh one.
          if (!connectionLost(e)) throw toStoreError(e, `rate limit ${scope}`);
          try {
            return await l[op](id);
          } catch (again) {
            throw toStoreError(again, `rate limit ${scope}`);
          }
        }
      };
    return { hit: mapped('hit'), peek: mapped('peek') };
  }

  function logLimiter(scope: string, { limit, windowMs }: { limit: number; windowMs: number }): SharedRateLimiter {
    let lastSweep = clock.now();
    const decide = (times: number[], now: number, allowed: boolean): RateDecision => {
      const inWindow = times.filter((t) => t > now - windowMs);
      const oldest = inWindow.length > 0 ? Math.min(...inWindow) : null;
      const d = {
        allowed,
        limit,
        remaining: Math.max(0, limit - inWindow.length),
        resetS: oldest === null ? 0 : Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
        // When a slot frees, to the millisecond (a failure budget's block ends then).
        freesAt: oldest === null ? now : oldest + windowMs,
      };
      return d;
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
    keyChanges: { subscribe: keyChanges.subscribe },
    accountChanges: { subscribe: accountChanges.subscribe },
    linkChanges: { subscribe: linkChanges.subscribe },
    surfaceChanges: { subscribe: surfaceChanges.subscribe },
    rateLimiter,
    requestLimiter(opts) {
      const rates = createRequestRates({
        scope: 'key',
        ...opts,
        exactMax: EXACT_MAX,
        clock,
        unit: unitOfWorkOn(sql),
        onError,
        syncMs: requestSyncMs,
      });
      requestRates.push(rates);
      return rates;
    },
    failureBudget: (scope, opts) => budgets.budget(scope, opts, rateLimiter(scope, opts)),
    async close() {
      // What was admitted and not yet written is written now, while the pool is open.
      await Promise.all(requestRates.map((r) => r.close()));
      handlers.clear();
      for (const c of changeChannels) c.heard.clear();
      for (const l of [listeningBlocks, ...changeChannels.map((c) => c.listening)]) {
        await Promise.race([l.unlisten().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]);
      }
      // With the database away, unlisten would wait for a connection: give it a moment only.
      await Promise.race([listening.unlisten().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]);
      await pool.end();
    },
  };
}
