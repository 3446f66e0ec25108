// Memory entries on PostgreSQL (table memory_entries, migration 0004): one row per entry, so a
// pin reads and writes the rows it names and never the rest of what the account keeps. The
// account's entry count lives on its account_seq row; a change that writes takes that row's
// lock, then its entries' (serializing the account's changes on every server, so the cap is
// checked against a count no concurrent change can move), and one that writes nothing locks
// nothing. One transaction per change (changeMemory below).
import { MemoryEntry, memoryDueAt } from '../documents';
import type { MemoryPeek, MemoryPort } from '../memory-port';
import { ACCOUNTS_CHANNEL } from './channels';
import { CallerError } from './database-error';
import type { Runner, Statements } from './unit-of-work';

type Row = { key: string; entry: unknown };

const byKey = (rows: readonly Row[]) => new Map(rows.map((r) => [r.key, MemoryEntry.parse(r.entry)]));

/** The named entries and the account's count, in one statement (one round trip, one snapshot). */
async function peek(db: Statements, accountId: string, keys: string[]): Promise<MemoryPeek> {
  const rows = await db<{ memory: string | null; key: string | null; entry: unknown }[]>`
    SELECT s.memory, e.key, e.entry FROM (SELECT 1) one
      LEFT JOIN account_seq s ON s.account_id = ${accountId}
      LEFT JOIN memory_entries e ON e.account_id = ${accountId} AND e.key = ANY(${keys}::text[])`;
  return { found: byKey(rows.filter((r): r is Row & { memory: string | null } => r.key !== null)), count: Number(rows[0]?.memory ?? 0) };
}

export function memoryRows(run: Runner): MemoryPort {
  const { sql, begin } = run;
  return {
    async readMemory(accountId) {
      const rows = await sql<Row[]>`SELECT key, entry FROM memory_entries WHERE account_id = ${accountId} ORDER BY key`;
      return rows.map((r) => MemoryEntry.parse(r.entry));
    },
    async peekMemory(accountId, keys): Promise<MemoryPeek> {
      return peek(sql, accountId, [...keys]);
    },
    async changeMemory(accountId, keys, decide, { likelyWrites = false } = {}) {
      const named = [...keys];
      const run = (current: MemoryPeek) => {
        try {
          return decide(current);
        } catch (e) {
          throw new CallerError(e);
        }
      };
      let out: { result: unknown } | undefined;
      await begin(async (tx) => {
        // 1. Read without locking: an answer that writes nothing (a repeated pin) is final,
        // and costs the account no lock and the disk no sync. (Not when a write is likely: it
        // would be a round trip for nothing.)
        if (!likelyWrites) {
          const first = run(await peek(tx, accountId, named));
          if ((first.put ?? []).length === 0 && (first.remove ?? []).length === 0) {
            out = { result: first.result };
            return;
          }
        }
        // 2. Lock the account's counter row, then the named entries (in key order), and decide
        // on them. Every change takes that row first: the event a change appends in the same
        // transaction takes it anyway (one row per account, events and memory counts), so one
        // account's writes are serialized by it already, and one order for every transaction —
        // counter row, then entries — leaves no cycle. (Entries first deadlocked: a change
        // holding the row and re-reading an entry another change had just made, while that
        // change, holding the entry, waited for the row to append its event.) The count is
        // checked against the row no concurrent change can move.
        // (Sent together: a transaction's statements are pipelined, and run in this order.)
        const [[seq], locked] = await Promise.all([
          tx<{ memory: string }[]>`INSERT INTO account_seq AS s (account_id) VALUES (${accountId})
            ON CONFLICT (account_id) DO UPDATE SET memory = s.memory RETURNING memory`,
          tx<Row[]>`SELECT key, entry FROM memory_entries
            WHERE account_id = ${accountId} AND key = ANY(${named}::text[]) ORDER BY key FOR UPDATE`,
        ]);
        const found = byKey(locked);
        const change = run({ found, count: Number(seq?.memory ?? 0) });
        const put = change.put ?? [];
        const remove = (change.remove ?? []).filter((k) => found.has(k));
        const added = put.filter((e) => !found.has(e.key)).length;
        // The writes are sent together (pipelined; they run in this order), one round trip.
        const writes: Promise<unknown>[] = [];
        if (put.length > 0) {
          // Entries as text cast in SQL, as every other record (records.ts, `json`).
          writes.push(tx`INSERT INTO memory_entries (account_id, key, due_at, entry)
            SELECT ${accountId}::text, k, d, e::json
            FROM unnest(${put.map((e) => e.key)}::text[], ${put.map(memoryDueAt)}::float8[], ${put.map((e) => JSON.stringify(e))}::text[])
              AS t(k, d, e)
            ON CONFLICT (account_id, key) DO UPDATE SET due_at = EXCLUDED.due_at, entry = EXCLUDED.entry`);
        }
        if (remove.length > 0) writes.push(tx`DELETE FROM memory_entries WHERE account_id = ${accountId} AND key = ANY(${remove}::text[])`);
        if (added !== remove.length)
          writes.push(tx`UPDATE account_seq SET memory = memory + ${added - remove.length} WHERE account_id = ${accountId}`);
        // Announced at commit when the account's counts (pinned, fading) move: every server
        // drops what it keeps of the account. A new note on a kept entry moves none.
        if (remove.length > 0 || put.some((e) => found.get(e.key)?.tier !== e.tier)) {
          writes.push(tx`SELECT pg_notify(${ACCOUNTS_CHANNEL}, ${accountId})`);
        }
        await Promise.all(writes);
        out = { result: change.result };
      });
      return (out as { result: never }).result;
    },
    async memoryDue(now, limit) {
      return sql<{ account_id: string; key: string }[]>`SELECT account_id, key FROM memory_entries
        WHERE due_at <= ${now} ORDER BY due_at LIMIT ${limit}`;
    },
  };
}
