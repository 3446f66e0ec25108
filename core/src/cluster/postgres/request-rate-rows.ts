// The shared table's side of the per-key request window (request-rates.ts): reading one key's
// row on first sight, writing a batch of this server's counts in one statement that answers
// each row as it now stands, and dropping the rows of keys idle for a window. The shapes are
// the exact limiter's (cluster.ts): `rate_logs` (the times of the last `limit` requests) when
// `exact`, `rate_buckets` (two fixed buckets, the previous one weighted) otherwise.

import type { Database } from '../../store/postgres/database';
import type { Statements } from '../../store/postgres/unit-of-work';

/** A key's window as the table holds it. */
export type SharedWindow = { kind: 'log'; times: number[] } | { kind: 'buckets'; bucket: number; cur: number; prev: number };

/**
 * Requests admitted here, as counts: per millisecond in the exact shape (the table keeps the
 * times), per bucket start in the bucketed one (it keeps only counts). A busy key admits
 * thousands between two writes; a list of their times was walked and copied on every request.
 */
export type Tally = Map<number, number>;

/** Each key's counts to write, in one lock order. */
export type RateBatch = readonly { id: string; tally: Tally }[];

/** Which window rows a limiter owns: its scope, its limit and window, and the table shape. */
export type RateTable = { scope: string; limit: number; windowMs: number; exact: boolean };

export const bucketOf = (t: number, windowMs: number) => Math.floor(t / windowMs) * windowMs;

/** One key's row (an empty window when it has none). */
export async function readRateRow(sql: Database, { scope, exact }: RateTable, id: string): Promise<SharedWindow> {
  if (exact) {
    const [row] = await sql<{ times: number[] }[]>`SELECT times FROM rate_logs WHERE scope = ${scope} AND id = ${id}`;
    return { kind: 'log', times: row?.times ?? [] };
  }
  const [row] = await sql<{ bucket_start: number; cur: string; prev: string }[]>`
        SELECT bucket_start, cur, prev FROM rate_buckets WHERE scope = ${scope} AND id = ${id}`;
  return { kind: 'buckets', bucket: row?.bucket_start ?? 0, cur: Number(row?.cur ?? 0), prev: Number(row?.prev ?? 0) };
}

/** Adds each key's counts to its row through `db`, in `batch`'s order; answers the rows as they now stand. */
export function writeRateRows(db: Statements, table: RateTable, batch: RateBatch, now: number): Promise<Map<string, SharedWindow>> {
  return table.exact ? writeLogs(db, table, batch, now) : writeBuckets(db, table, batch, now);
}

/** Rows of keys idle for a window are dropped, as the exact limiter does (best effort). */
export function dropIdleRateRows(sql: Database, { scope, windowMs, exact }: RateTable, now: number): void {
  const table = exact ? sql`rate_logs` : sql`rate_buckets`;
  const cutoff = exact ? sql`last_at <= ${now - windowMs}` : sql`bucket_start < ${bucketOf(now, windowMs) - windowMs}`;
  sql`DELETE FROM ${table} WHERE scope = ${scope} AND ${cutoff}`.catch(() => undefined);
}

async function writeLogs(
  db: Statements,
  { scope, limit, windowMs }: RateTable,
  batch: RateBatch,
  now: number,
): Promise<Map<string, SharedWindow>> {
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

async function writeBuckets(
  db: Statements,
  { scope, windowMs }: RateTable,
  batch: RateBatch,
  now: number,
): Promise<Map<string, SharedWindow>> {
  const bucket = bucketOf(now, windowMs);
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
