// The per-key request window on PostgreSQL, decided from this server's memory and written to
// the shared table in batches, so a request costs the database no statement of its own
// (DESIGN.md "Cost follows work": a read commits nothing, a write commits once).
//
// Each server keeps, per key it has seen lately, the window as the table last told it (every
// server's counted requests up to then) plus the requests it admitted since (pending). A
// request is admitted while those together are under the limit. The pending counts reach the
// table (one statement for every key that has some) in the next transaction this server
// commits — a write request's own, so a write still commits once — or within `syncMs`,
// whichever comes first, and the statement answers each row as it now stands, which the
// server takes as its new view of that key.
//
// What that costs in exactness, stated: one server alone is exact (its memory holds all it
// admitted); across servers a key can pass its limit by what the other servers admitted for
// it in the last `syncMs` that this server has not yet read back — at the default 100 ms and
// a limit of 120 a minute, a client spreading over N servers gets at most a few requests more
// per window. The earlier design (one statement under the row's lock per request) was exact
// and cost every request, reads included, a commit.
//
// The table's shapes are the exact limiter's (cluster.ts): `rate_logs` (the times of the last
// `limit` requests) up to EXACT_MAX a window, `rate_buckets` (two fixed buckets, the previous
// one weighted) above it, so servers of the previous version can share the table meanwhile.

import type { RateDecision } from '../../ratelimit/sliding-window';
import type { Database } from '../../store/postgres/database';
import { retryingLostConnection } from '../../store/postgres/database-error';
import type { Statements, UnitOfWork } from '../../store/postgres/unit-of-work';
import type { SharedRateLimiter } from '../cluster-port';

type Shared = { kind: 'log'; times: number[] } | { kind: 'buckets'; bucket: number; cur: number; prev: number };

/**
 * Requests admitted here, as counts: per millisecond in the exact shape (the table keeps the
 * times), per bucket start in the bucketed one (it keeps only counts). A busy key admits
 * thousands between two writes; a list of their times was walked and copied on every request.
 */
type Tally = Map<number, number>;

type Batch = { id: string; e: Entry; tally: Tally }[];

type Entry = {
  /** The row as the table last answered it (null until read on first sight). */
  shared: Shared | null;
  loading: Promise<void> | null;
  /** Admitted here, not yet written; and batches written by a statement not yet committed. */
  pending: Tally;
  inFlight: Tally[];
  lastAt: number;
};

export type RequestRates = SharedRateLimiter & {
  /** Writes what is pending now (tests, shutdown). */
  sync(): Promise<void>;
  close(): Promise<void>;
};

export function createRequestRates({
  scope,
  limit,
  windowMs,
  exactMax,
  clock,
  unit,
  syncMs = 100,
  onError = () => undefined,
}: {
  scope: string;
  limit: number;
  windowMs: number;
  /** Limits up to this many a window keep the times; larger ones two buckets. */
  exactMax: number;
  clock: { now(): number };
  /** The pool's unit of work: each unit's commit carries what is pending (`beforeCommit`). */
  unit: UnitOfWork;
  syncMs?: number;
  onError?: (e: unknown) => void;
}): RequestRates {
  // Reads and the sweep go to the pool: they belong to no request's transaction.
  const sql: Database = unit.pool;
  const exact = limit <= exactMax;
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | null = null;
  let lastSweep = clock.now();
  let closed = false;
  const syncing = new Set<Promise<void>>();

  const bucketOf = (t: number) => Math.floor(t / windowMs) * windowMs;
  const count = (tally: Tally, slot: number, k: number) => tally.set(slot, (tally.get(slot) ?? 0) + k);

  /** How many of the window's slots are taken at `now`, and when the next one frees. */
  function used(e: Entry, now: number): { used: number; resetS: number } {
    if (exact) {
      const cutoff = now - windowMs;
      let n = 0;
      let oldest = Number.POSITIVE_INFINITY;
      /** `k` requests at time `t`, if still in the window. */
      const take = (t: number, k: number) => {
        if (t <= cutoff) return;
        n += k;
        if (t < oldest) oldest = t;
      };
      if (e.shared?.kind === 'log') for (const t of e.shared.times) take(t, 1);
      for (const tally of [e.pending, ...e.inFlight]) for (const [t, k] of tally) take(t, k);
      if (n === 0) oldest = now;
      return { used: n, resetS: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) };
    }
    const bucket = bucketOf(now);
    const s = e.shared?.kind === 'buckets' ? e.shared : null;
    let cur = s?.bucket === bucket ? s.cur : 0;
    let prev = s?.bucket === bucket ? s.prev : s?.bucket === bucket - windowMs ? s.cur : 0;
    for (const tally of [e.pending, ...e.inFlight]) {
      cur += tally.get(bucket) ?? 0;
      prev += tally.get(bucket - windowMs) ?? 0;
    }
    const weight = 1 - (now - bucket) / windowMs;
    return { used: Math.ceil(prev * weight + cur), resetS: Math.max(1, Math.ceil((bucket + windowMs - now) / 1000)) };
  }

  async function load(id: string, e: Entry) {
    if (exact) {
      const [row] = await sql<{ times: number[] }[]>`SELECT times FROM rate_logs WHERE scope = ${scope} AND id = ${id}`;
      e.shared = { kind: 'log', times: row?.times ?? [] };
    } else {
      const [row] = await sql<{ bucket_start: number; cur: string; prev: string }[]>`
        SELECT bucket_start, cur, prev FROM rate_buckets WHERE scope = ${scope} AND id = ${id}`;
      e.shared = { kind: 'buckets', bucket: row?.bucket_start ?? 0, cur: Number(row?.cur ?? 0), prev: Number(row?.prev ?? 0) };
    }
  }

  /** The key's entry, its shared window read once on first sight (concurrent first hits share the read). */
  async function entry(id: string): Promise<Entry> {
    let e = entries.get(id);
    if (!e) {
      e = { shared: null, loading: null, pending: new Map(), inFlight: [], lastAt: clock.now() };
      entries.set(id, e);
    }
    if (e.shared === null) {
      const at = e;
      // A read, so safe to send again; what still fails is a 503 to retry, never a 500.
      e.loading ??= retryingLostConnection(`rate limit ${scope}`, () => load(id, at)).finally(() => {
        at.loading = null;
      });
      await e.loading;
    }
    return e;
  }

  /** Forgets keys idle for a window with nothing left to write: memory follows the active keys. */
  function sweep(now: number) {
    if (now - lastSweep < windowMs) return;
    lastSweep = now;
    for (const [id, e] of entries) {
      if (e.lastAt <= now - windowMs && e.pending.size === 0 && e.inFlight.length === 0 && !e.loading) entries.delete(id);
    }
    // Rows of keys idle for a window are dropped, as the exact limiter does.
    const table = exact ? sql`rate_logs` : sql`rate_buckets`;
    const cutoff = exact ? sql`last_at <= ${now - windowMs}` : sql`bucket_start < ${bucketOf(now) - windowMs}`;
    sql`DELETE FROM ${table} WHERE scope = ${scope} AND ${cutoff}`.catch(() => undefined);
  }

  function schedule() {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      sync().catch(onError);
    }, syncMs);
    timer.unref();
  }

  /**
   * Writes every pending count in one statement through `db` (a transaction's, or the pool).
   * Answers how to settle: committed, the rows answered become the view; rolled back, the
   * counts go back to pending for the next write.
   */
  async function flush(db: Statements): Promise<((committed: boolean) => void) | undefined> {
    const batch: Batch = [];
    for (const [id, e] of entries) {
      if (e.pending.size === 0) continue;
      batch.push({ id, e, tally: e.pending });
      e.inFlight.push(e.pending);
      e.pending = new Map();
    }
    if (batch.length === 0) return undefined;
    batch.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)); // one lock order on every server
    const now = clock.now();
    let rows: Map<string, Shared>;
    try {
      rows = exact ? await writeLogs(db, batch, now) : await writeBuckets(db, batch, now);
    } catch (err) {
      settle(batch, null);
      schedule();
      throw err;
    }
    return (committed) => {
      settle(batch, committed ? rows : null);
      if (!committed) schedule();
    };
  }

  function settle(batch: Batch, rows: Map<string, Shared> | null) {
    for (const x of batch) {
      x.e.inFlight = x.e.inFlight.filter((b) => b !== x.tally);
      if (rows === null) for (const [slot, k] of x.tally) count(x.e.pending, slot, k);
      else x.e.shared = rows.get(x.id) ?? x.e.shared;
    }
  }

  /**
   * Writes what is pending now on the pool, outside any transaction (the timer, shutdown), and
   * waits for the writes already under way: once it returns, everything admitted before is in
   * the table.
   */
  async function sync() {
    const running = [...syncing];
    const mine = flush(unit.pool).then((settleWith) => settleWith?.(true));
    syncing.add(mine);
    try {
      await Promise.all([mine, ...running.map((r) => r.catch(() => undefined))]);
    } finally {
      syncing.delete(mine);
    }
  }

  async function writeLogs(db: Statements, batch: Batch, now: number): Promise<Map<string, Shared>> {
    const cutoff = now - windowMs;
    const times = (tally: Tally) => [...tally].flatMap(([t, k]) => Array<number>(k).fill(t));
    const input = JSON.stringify(batch.map((b) => ({ i: b.id, t: times(b.tally) })));
    // The window's newest `limit` times, old and new together: the count saturates at the limit.
    const rows = await db<{ id: string; times: number[] }[]>`
      INSERT INTO rate_logs AS r (scope, id, times, last_at, allowed)
      SELECT ${scope}, x->>'i', ARRAY(SELECT t::float8 FROM jsonb_array_elements_text(x->'t') t), ${now}, true
        FROM jsonb_array_elements(${input}::text::jsonb) x ORDER BY x->>'i'
      ON CONFLICT (scope, id) DO UPDATE SET
        times = ARRAY(SELECT t FROM (SELECT t FROM unnest(r.times || excluded.times) t WHERE t > ${cutoff}
                        ORDER BY t DESC LIMIT ${limit}) w ORDER BY t),
        last_at = greatest(r.last_at, excluded.last_at),
        allowed = true
      RETURNING id, times`;
    return new Map(rows.map((r) => [r.id, { kind: 'log', times: r.times.map(Number) }]));
  }

  async function writeBuckets(db: Statements, batch: Batch, now: number): Promise<Map<string, Shared>> {
    const bucket = bucketOf(now);
    const input = JSON.stringify(batch.map((b) => ({ i: b.id, c: b.tally.get(bucket) ?? 0, p: b.tally.get(bucket - windowMs) ?? 0 })));
    // The row rolled forward to this bucket, then the counts added to the bucket each fell in.
    const prev = db`(CASE WHEN r.bucket_start = ${bucket} THEN r.prev WHEN r.bucket_start = ${bucket - windowMs} THEN r.cur ELSE 0 END)`;
    const cur = db`(CASE WHEN r.bucket_start = ${bucket} THEN r.cur ELSE 0 END)`;
    const rows = await db<{ id: string; bucket_start: number; cur: string; prev: string }[]>`
      INSERT INTO rate_buckets AS r (scope, id, bucket_start, cur, prev, allowed)
      SELECT ${scope}, x->>'i', ${bucket}, (x->>'c')::bigint, (x->>'p')::bigint, true
        FROM jsonb_array_elements(${input}::text::jsonb) x ORDER BY x->>'i'
      ON CONFLICT (scope, id) DO UPDATE SET
        prev = ${prev} + excluded.prev,
        cur = ${cur} + excluded.cur,
        bucket_start = ${bucket},
        allowed = true
      RETURNING id, bucket_start, cur, prev`;
    return new Map(rows.map((r) => [r.id, { kind: 'buckets', bucket: Number(r.bucket_start), cur: Number(r.cur), prev: Number(r.prev) }]));
  }

  // The transactions this server commits on the pool carry what is pending — one at a time: a
  // transaction that wrote a key's row holds its lock until its commit is on disk, and every
  // other one carrying that key would queue behind it instead of sharing the disk's sync.
  let carrying = false;
  const removeHook = unit.beforeCommit(async (tx) => {
    if (carrying) return undefined;
    carrying = true;
    try {
      const settleWith = await flush(tx);
      if (!settleWith) carrying = false;
      return (committed) => {
        carrying = false;
        settleWith?.(committed);
      };
    } catch (e) {
      carrying = false;
      throw e;
    }
  });

  const decide = (u: { used: number; resetS: number }, allowed: boolean): RateDecision => ({
    allowed,
    limit,
    remaining: Math.max(0, limit - u.used),
    resetS: u.resetS,
  });

  function hitEntry(e: Entry): RateDecision {
    const now = clock.now();
    sweep(now);
    e.lastAt = now;
    const before = used(e, now);
    if (before.used >= limit) return decide(before, false);
    count(e.pending, exact ? now : bucketOf(now), 1);
    schedule();
    return decide(used(e, now), true);
  }

  return {
    hit(id) {
      // A key whose row was read is decided from memory at once (every request's path); its
      // first sight waits for the read.
      const known = entries.get(id);
      return known?.shared ? hitEntry(known) : entry(id).then(hitEntry);
    },
    async peek(id) {
      const e = await entry(id);
      const u = used(e, clock.now());
      return decide(u, u.used < limit);
    },
    sync,
    async close() {
      closed = true;
      removeHook();
      if (timer) clearTimeout(timer);
      timer = null;
      await sync().catch(() => undefined);
    },
  };
}
