// The thread on PostgreSQL (table thread): an append bumps the account's counter row
// (account_seq) and inserts in one statement, as events do (records.ts: nextId).
import { ThreadEntry } from '../documents';
import type { ThreadPort } from '../thread-port';
import { json, nextId } from './records';
import type { Runner } from './unit-of-work';

export function threadRows(run: Runner): ThreadPort {
  const { sql } = run;
  return {
    async appendThread(accountId, entry) {
      const [row] = await sql<{ id: string }[]>`
      WITH ${nextId(sql, accountId, 'thread')}
      INSERT INTO thread (account_id, id, entry)
      SELECT ${accountId}::text, id, ${json(entry)}::text::json FROM next
      RETURNING id`;
      return { ...entry, id: Number(row?.id) } as ThreadEntry;
    },
    async pruneThread(accountId, keepLast) {
      // The id counter lives in account_seq, so ids go on whatever is deleted; the newest stays anyway, as elsewhere.
      const r = await sql`DELETE FROM thread WHERE account_id = ${accountId}
        AND id <= (SELECT max(id) FROM thread WHERE account_id = ${accountId}) - ${Math.max(keepLast, 1)}`;
      return r.count;
    },
    async readThread(accountId, { before, limit }) {
      const rows =
        before === undefined
          ? await sql`SELECT id, entry FROM thread WHERE account_id = ${accountId} ORDER BY id DESC LIMIT ${limit}`
          : await sql`SELECT id, entry FROM thread
            WHERE account_id = ${accountId} AND id < ${before} ORDER BY id DESC LIMIT ${limit}`;
      return rows.reverse().map((r) => ThreadEntry.parse({ ...(r.entry as object), id: Number(r.id) }));
    },
  };
}
