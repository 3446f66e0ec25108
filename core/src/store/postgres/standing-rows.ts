// Standing intents on PostgreSQL (table standing): the record whole, beside the columns the
// beat's one query for what may fire reads (migration 0004), written in the same statement.
import type { TransactionSql } from 'postgres';
import { StandingRecord } from '../documents';
import type { StandingPort } from '../standing-port';
import { type Doc, json, lockedUpdate } from './records';
import type { Runner } from './unit-of-work';

/** The columns the beat's query for standing intents that may fire reads (migration 0004). */
export const standingColumns = (r: StandingRecord) => ({
  active: r.state === 'active',
  trigger_kind: r.trigger.kind,
  next_at: r.next_at,
  has_pending: r.pending.length > 0,
  created_at: r.created_at,
});

export function standingRows(run: Runner): StandingPort {
  const { sql, begin } = run;
  return {
    async putStanding(record) {
      const c = standingColumns(record);
      await sql`INSERT INTO standing (account_id, id, active, trigger_kind, next_at, has_pending, created_at, doc)
        VALUES (${record.account_id}, ${record.id}, ${c.active}, ${c.trigger_kind}, ${c.next_at}, ${c.has_pending}, ${c.created_at},
          ${json(record)}::text::json)
        ON CONFLICT (account_id, id) DO UPDATE SET active = EXCLUDED.active, trigger_kind = EXCLUDED.trigger_kind,
          next_at = EXCLUDED.next_at, has_pending = EXCLUDED.has_pending, created_at = EXCLUDED.created_at, doc = EXCLUDED.doc`;
    },
    async listStanding(accountId) {
      const rows = await sql<Doc[]>`SELECT doc FROM standing WHERE account_id = ${accountId} ORDER BY seq`;
      return rows.map((r) => StandingRecord.parse(r.doc));
    },
    async dueStanding({ now, pricesMoved, createdSince }) {
      // Each arm is a partial index of migration 0004; idle accounts appear in none of them.
      const rows = await sql<Doc[]>`SELECT doc FROM standing WHERE has_pending
          OR (active AND trigger_kind = 'daily' AND next_at <= ${now})
          OR (active AND trigger_kind = 'price' AND created_at >= ${pricesMoved ? Number.MIN_SAFE_INTEGER : createdSince})
        ORDER BY seq`;
      return rows.map((r) => StandingRecord.parse(r.doc));
    },
    async updateStanding(accountId, id, update) {
      const read = (tx: TransactionSql) => tx<Doc[]>`SELECT doc FROM standing WHERE account_id = ${accountId} AND id = ${id} FOR UPDATE`;
      const write = (tx: TransactionSql, next: StandingRecord) => {
        const c = standingColumns(next);
        return tx`UPDATE standing SET active = ${c.active}, trigger_kind = ${c.trigger_kind}, next_at = ${c.next_at},
          has_pending = ${c.has_pending}, created_at = ${c.created_at}, doc = ${json(next)}::text::json
          WHERE account_id = ${accountId} AND id = ${id}`;
      };
      return lockedUpdate(begin, { read, parse: (doc) => StandingRecord.parse(doc), write }, update);
    },
  };
}
