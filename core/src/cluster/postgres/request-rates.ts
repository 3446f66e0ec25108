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
import { bucketOf, dropIdleRateRows, type RateTable, readRateRow, type SharedWindow, type Tally, writeRateRows } from './request-rate-rows';

type Batch = { id: string; e: Entry; tally: Tally }[];

type Entry = {
  /** The row as the table last answered it (null until read on first sight). */
  shared: SharedWindow | null;
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

/** What createRequestRates is built from. */
type RequestRatesOptions = {
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
};

const count = (tally: Tally, slot: number, k: number) => tally.set(slot, (tally.get(slot) ?? 0) + k);

/** How many of the window's slots are taken at `now` (the table's view and this server's counts), and when the next one frees. */
function used({ windowMs, exact }: RateTable, e: Entry, now: number): { used: number; resetS: number } {
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
  const bucket = bucketOf(now, windowMs);
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

// The transactions this server commits on the pool carry what is pending — one at a time: a
// transaction that wrote a key's row holds its lock until its commit is on disk, and every
// other one carrying that key would queue behind it instead of sharing the disk's sync.
/** Hooks `flush` into the unit's commits; answers how to unhook. */
function carryInCommits(unit: UnitOfWork, flush: (db: Statements) => Promise<((committed: boolean) => void) | undefined>): () => void {
  let carrying = false;
  return unit.beforeCommit(async (tx) => {
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
}

export function createRequestRates({
  scope,
  limit,
  windowMs,
  exactMax,
  clock,
  unit,
  syncMs = 100,
  onError = () => undefined,
}: RequestRatesOptions): RequestRates {
  // Reads and the sweep go to the pool: they belong to no request's transaction.
  const sql: Database = unit.pool;
  const exact = limit <= exactMax;
  const table: RateTable = { scope, limit, windowMs, exact };
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | null = null;
  let lastSweep = clock.now();
  let closed = false;
  const syncing = new Set<Promise<void>>();

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
      e.loading ??= retryingLostConnection(`rate limit ${scope}`, async () => {
        at.shared = await readRateRow(sql, table, id);
      }).finally(() => {
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
    dropIdleRateRows(sql, table, now);
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
    let rows: Map<string, SharedWindow>;
    try {
      rows = await writeRateRows(db, table, batch, now);
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

  function settle(batch: Batch, rows: Map<string, SharedWindow> | null) {
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

  const removeHook = carryInCommits(unit, flush);

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
    const before = used(table, e, now);
    if (before.used >= limit) return decide(before, false);
    count(e.pending, exact ? now : bucketOf(now, windowMs), 1);
    schedule();
    return decide(used(table, e, now), true);
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
      const u = used(table, e, clock.now());
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
