// The events log on PostgreSQL (table events): an append bumps the account's counter row
// (account_seq) and inserts in ONE statement, so ids are strictly increasing without gaps and
// commit in id order; the same statement NOTIFYs `presence_events`, the wake-up of every
// server's live streams (sent at commit).
import { StoredEvent } from '../documents';
import type { EventsPort } from '../events-port';
import { EVENTS_CHANNEL } from './channels';
import { json, nextId } from './records';
import type { Runner } from './unit-of-work';

export function eventsRows(run: Runner): EventsPort {
  const { sql } = run;
  return {
    async appendEvent(accountId, event) {
      const [row] = await sql<{ id: string }[]>`
      WITH ${nextId(sql, accountId, 'events')}, appended AS (
        INSERT INTO events (account_id, id, type, at, data)
        SELECT ${accountId}::text, id, ${event.type}::text, ${event.at}::float8, ${json(event.data)}::text::json FROM next
        RETURNING id
      )
      -- The wake-up for every server's streams (cluster/postgres/cluster.ts), sent at commit: in this statement.
      SELECT id, pg_notify(${EVENTS_CHANNEL}, ${accountId}::text || ':' || id)::text AS notified FROM appended`;
      return { id: Number(row?.id), ...event };
    },
    async eventsAfter(accountId, afterId, limit) {
      const rows = await sql`SELECT id, type, data, at FROM events
      WHERE account_id = ${accountId} AND id > ${afterId} ORDER BY id LIMIT ${limit}`;
      return rows.map((r) => StoredEvent.parse({ id: Number(r.id), type: r.type, data: r.data, at: r.at }));
    },
    async eventBounds(accountId) {
      const [row] = await sql<{ oldest: string | null; latest: string | null }[]>`SELECT
      (SELECT min(id) FROM events WHERE account_id = ${accountId}) AS oldest,
      (SELECT events FROM account_seq WHERE account_id = ${accountId}) AS latest`;
      return { oldest: row?.oldest == null ? null : Number(row.oldest), latest: Number(row?.latest ?? 0) };
    },
    async pruneEvents(accountId, keepLast, olderThan) {
      // What the embedded store cuts: the prefix beyond the newest `keepLast`, extended over
      // the stale events that follow it, never the newest event. All by the primary key.
      const result = await sql`
      WITH beyond AS (
        SELECT id FROM events WHERE account_id = ${accountId} ORDER BY id DESC OFFSET ${keepLast} LIMIT 1
      ), fresh AS (
        SELECT min(id) AS id FROM events
        WHERE account_id = ${accountId} AND id > COALESCE((SELECT id FROM beyond), 0) AND at >= ${olderThan}
      )
      DELETE FROM events
      WHERE account_id = ${accountId}
        AND id < LEAST((SELECT id FROM fresh), (SELECT max(id) FROM events WHERE account_id = ${accountId}))`;
      return result.count;
    },

    async pruneEventsOlderThan(olderThan) {
      // One range scan of events_at, in bounded batches so no statement holds locks for long.
      // Ids come from account_seq, so deleting an account's every event never restarts them.
      let dropped = 0;
      for (;;) {
        const r = await sql`DELETE FROM events WHERE ctid = ANY(ARRAY(SELECT ctid FROM events WHERE at < ${olderThan} LIMIT 5000))`;
        dropped += r.count;
        if (r.count < 5000) return dropped;
      }
    },
  };
}
