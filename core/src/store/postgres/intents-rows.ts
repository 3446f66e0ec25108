// Intents on PostgreSQL (table intents): the record whole beside the columns it is looked up
// by (state, confirm id, Idempotency-Key, what it spent and when, when a hold expires),
// written from the record each time. A transition is compare-and-set on the stored text.
import { IntentRecord } from '../documents';
import type { IntentsPort } from '../intents-port';
import { type Doc, insertNew, json } from './records';
import type { Runner, Statements } from './unit-of-work';

/** The columns an intent is looked up by, taken from the record each time it is written. */
export const intentColumns = (r: IntentRecord) => ({
  state: r.state,
  confirm_id: r.confirm_id,
  idempotency_key: r.idempotency_key,
  // When a spending record spent: executed, or (still in flight) its last change.
  spent_at: r.executed_at ?? r.updated_at,
  value_usd: r.value_usd,
  expires_at: r.expires_at,
});

const insertIntent = (tx: Statements, r: IntentRecord) => {
  const c = intentColumns(r);
  return tx`INSERT INTO intents (account_id, id, state, confirm_id, idempotency_key, spent_at, value_usd, expires_at, doc)
    VALUES (${r.account_id}, ${r.id}, ${c.state}, ${c.confirm_id}, ${c.idempotency_key}, ${c.spent_at}, ${c.value_usd}, ${c.expires_at},
      ${json(r)}::text::json)`;
};

export function intentsRows(run: Runner): IntentsPort {
  const { sql } = run;
  return {
    async createIntent(intent) {
      await insertNew(insertIntent(sql, intent), `intent ${intent.id}`);
    },
    async getIntent(accountId, id) {
      const [row] = await sql<Doc[]>`SELECT doc FROM intents WHERE account_id = ${accountId} AND id = ${id}`;
      return row ? IntentRecord.parse(row.doc) : null;
    },
    async findIntentByConfirmId(accountId, confirmId) {
      const [row] = await sql<Doc[]>`SELECT doc FROM intents
      WHERE account_id = ${accountId} AND confirm_id = ${confirmId} ORDER BY seq DESC LIMIT 1`;
      return row ? IntentRecord.parse(row.doc) : null;
    },
    async findIntentByIdempotencyKey(accountId, key) {
      const [row] = await sql<Doc[]>`SELECT doc FROM intents
      WHERE account_id = ${accountId} AND idempotency_key = ${key} ORDER BY seq DESC LIMIT 1`;
      return row ? IntentRecord.parse(row.doc) : null;
    },
    async transitionIntent(accountId, id, from, to, patch = {}) {
      // Compare-and-set on the record's stored text, two statements and no transaction: the
      // UPDATE matches only the text that was read (re-checked after any concurrent writer
      // commits), so a change in between makes it match nothing and the read starts again.
      // Half the round trips of BEGIN / SELECT … FOR UPDATE / UPDATE / COMMIT, and this runs
      // inside every intent's nonce lock.
      for (;;) {
        const [row] = await sql<{ doc: string }[]>`SELECT doc::text AS doc FROM intents
        WHERE account_id = ${accountId} AND id = ${id} AND state = ANY(${[...from]}::text[])`;
        if (!row) return null;
        const next = IntentRecord.parse({ ...(JSON.parse(row.doc) as object), ...patch, state: to });
        const c = intentColumns(next);
        const written =
          await sql`UPDATE intents SET state = ${c.state}, confirm_id = ${c.confirm_id}, idempotency_key = ${c.idempotency_key},
        spent_at = ${c.spent_at}, value_usd = ${c.value_usd}, expires_at = ${c.expires_at}, doc = ${json(next)}::text::json
        WHERE account_id = ${accountId} AND id = ${id} AND doc::text = ${row.doc}`;
        if (written.count === 1) return next;
      }
    },
    async listIntents(accountId, { states, confirmable, last } = {}) {
      // Newest first with a limit when `last` is given (the intents_account index walked back
      // from the end), then put back in the order they were created.
      const rows = await sql<Doc[]>`SELECT doc FROM intents WHERE account_id = ${accountId}
        ${states ? sql`AND state = ANY(${[...states]}::text[])` : sql``}
        ${confirmable ? sql`AND confirm_id IS NOT NULL` : sql``}
        ORDER BY seq ${last === undefined ? sql`` : sql`DESC LIMIT ${last}`}`;
      return (last === undefined ? rows : rows.reverse()).map((r) => IntentRecord.parse(r.doc));
    },
    async heldCount(accountId) {
      // The partial index intents_held_account: the account's holds, not its history.
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM intents WHERE account_id = ${accountId} AND state = 'held'`;
      return row?.n ?? 0;
    },
    async spentSince(accountId, since) {
      // An index-only range scan of the partial index intents_spend: the cost grows with the
      // day's spending intents, not with the account's history.
      const [row] = await sql<{ total: string }[]>`SELECT COALESCE(sum(value_usd), 0)::text AS total FROM intents
      WHERE account_id = ${accountId} AND state IN ('executing', 'signed', 'done') AND spent_at >= ${since}`;
      return BigInt(row?.total ?? '0');
    },
    async intentsInStates(states) {
      const rows = await sql<Doc[]>`SELECT doc FROM intents WHERE state = ANY(${[...states]}::text[]) ORDER BY seq`;
      return rows.map((r) => IntentRecord.parse(r.doc));
    },
    async dueHolds(now) {
      const rows = await sql<Doc[]>`SELECT doc FROM intents WHERE state = 'held' AND expires_at <= ${now} ORDER BY expires_at`;
      return rows.map((r) => IntentRecord.parse(r.doc));
    },
  };
}
