// How records cross into PostgreSQL: whole, as `json` text beside the columns queries read
// (migrations/0001_init.sql says why json and not jsonb), with a caller's updater told apart
// from the database's failures.
import postgres from 'postgres';
import { PresenceError } from '../../errors/presence-error';
import { CallerError } from './database-error';
import type { Runner, Statements } from './unit-of-work';

export type Doc = { doc: unknown };

/**
 * A record as sent to a `json` column: the text as JSON.stringify writes it, bound as text and
 * cast in SQL (`${json(x)}::text::json`). Bound as json the driver would encode the string
 * again; bound as an object it goes through jsonb, which refuses "\u0000".
 */
export const json = (value: unknown) => JSON.stringify(value);

/** Runs a caller's updater so that its own failure is told apart from the database's. */
export function callerSays<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new CallerError(e);
  }
}

const UNIQUE_VIOLATION = '23505';
/** A duplicate key: the insert of a record that exists (each family says what that means). */
export const isUniqueViolation = (e: unknown) => e instanceof postgres.PostgresError && e.code === UNIQUE_VIOLATION;

/** The insert of a new record: one that exists already (`what`, e.g. "key key_1") is 409 conflict. */
export async function insertNew(insert: PromiseLike<unknown>, what: string): Promise<void> {
  try {
    await insert;
  } catch (e) {
    if (isUniqueViolation(e)) throw new PresenceError('conflict', `${what} exists`);
    throw e;
  }
}

/**
 * `next AS (…)`, for the one statement that appends to an account's log (events, thread): the
 * log's next id (`next.id`), its account_seq counter bumped in that same statement, so ids are
 * strictly increasing without gaps and commit in id order (the counter row stays locked until
 * commit).
 */
export const nextId = (sql: Statements, accountId: string, log: 'events' | 'thread') => sql`next AS (
        INSERT INTO account_seq AS s (account_id, ${sql(log)}) VALUES (${accountId}, 1)
        ON CONFLICT (account_id) DO UPDATE SET ${sql(log)} = s.${sql(log)} + 1
        RETURNING ${sql(log)} AS id
      )`;

/**
 * An `update*` of one record: its row read FOR UPDATE in a transaction (none: null), the
 * caller's updater run on it (its own failure told apart), and `write` of what it returned, all
 * committing together; concurrent updaters of the record queue on the row lock, none lost.
 */
export function lockedUpdate<T>(
  begin: Runner['begin'],
  row: {
    read: (tx: postgres.TransactionSql) => PromiseLike<Doc[]>;
    parse: (doc: unknown) => T;
    write: (tx: postgres.TransactionSql, next: T) => PromiseLike<unknown>;
  },
  update: (current: T) => T,
): Promise<T | null> {
  return begin(async (tx) => {
    const [found] = await row.read(tx);
    if (!found) return null;
    const next = callerSays(() => update(row.parse(found.doc)));
    await row.write(tx, next);
    return next;
  });
}
