// Memory entries on PostgreSQL (table memory_entries, migration 0004): one row per entry, so a
// pin reads and writes the rows it names and never the rest of what the account keeps. The
// account's entry count lives on its account_seq row; a change that moves the count takes that
// row's lock (serializing such changes on every server, so the cap is checked against a count
// no concurrent change can move); one that only rewrites stored entries locks just them, and
// one that writes nothing locks nothing. One transaction per change (changeMemory below).
import type postgres from 'postgres';
import { MemoryEntry, memoryDueAt } from '../documents';
import type { MemoryChange, MemoryPeek, StorePort } from '../store-port';
import { ACCOUNTS_CHANNEL } from './cluster';
import { CallerError } from './database-error';

type Row = { key: string; entry: unknown };

const byKey = (rows: readonly Row[]) => new Map(rows.map((r) => [r.key, MemoryEntry.parse(r.entry)]));

/** Whether applying `change` to `found` leaves the account's entry count as it is. */
const keepsCount = (change: MemoryChange<unknown>, found: ReadonlyMap<string, unknown>) =>
  (change.put ?? []).every((e) => found.has(e.key)) && !(change.remove ?? []).some((k) => found.has(k));

export function memoryRows(sql: postgres.Sql): Pick<StorePort, 'readMemory' | 'peekMemory' | 'changeMemory' | 'memoryDue'> {
  return {
    async readMemory(accountId) {
      const rows = await sql<Row[]>`SELECT key, entry FROM memory_entries WHERE account_id = ${accountId} ORDER BY key`;
      return rows.map((r) => MemoryEntry.parse(r.entry));
    },
    async peekMemory(accountId, keys): Promise<MemoryPeek> {
      const [rows, [seq]] = await Promise.all([
        sql<Row[]>`SELECT key, entry FROM memory_entries WHERE account_id = ${accountId} AND key = ANY(${[...keys]}::text[])`,
        sql<{ memory: string }[]>`SELECT memory FROM account_seq WHERE account_id = ${accountId}`,
      ]);
      return { found: byKey(rows), count: Number(seq?.memory ?? 0) };
    },
    async changeMemory(accountId, keys, decide) {
      const named = [...keys];
      const run = (current: MemoryPeek) => {
        try {
          return decide(current);
        } catch (e) {
          throw new CallerError(e);
        }
      };
      let out: { result: unknown } | undefined;
      await sql.begin(async (tx) => {
        // 1. Read without locking: an answer that writes nothing (a repeated pin) is final,
        // and costs the account no lock and the disk no sync.
        const seen = await tx<{ memory: string | null; key: string | null; entry: unknown }[]>`
          SELECT s.memory, e.key, e.entry FROM (SELECT 1) one
            LEFT JOIN account_seq s ON s.account_id = ${accountId}
            LEFT JOIN memory_entries e ON e.account_id = ${accountId} AND e.key = ANY(${named}::text[])`;
        const count = Number(seen[0]?.memory ?? 0);
        const first = run({ found: byKey(seen.filter((r): r is Row & { memory: string | null } => r.key !== null)), count });
        if ((first.put ?? []).length === 0 && (first.remove ?? []).length === 0) {
          out = { result: first.result };
          return;
        }
        // 2. Lock the named entries (in key order, as every change does) and decide on them. A
        // change that keeps the count (every put names a stored entry, nothing removed) needs
        // no other lock: changes of different entries of one account commit side by side.
        let found = byKey(
          await tx<Row[]>`SELECT key, entry FROM memory_entries
          WHERE account_id = ${accountId} AND key = ANY(${named}::text[]) ORDER BY key FOR UPDATE`,
        );
        let change = run({ found, count });
        if (!keepsCount(change, found)) {
          // 3. The count moves: the counter row's lock (created on the first change) serializes
          // the account's count-changing changes on every server, so the cap is checked against
          // a count no concurrent change can move. Taken after the entries' locks, always.
          const [seq] = await tx<{ memory: string }[]>`INSERT INTO account_seq AS s (account_id) VALUES (${accountId})
            ON CONFLICT (account_id) DO UPDATE SET memory = s.memory RETURNING memory`;
          found = byKey(
            await tx<Row[]>`SELECT key, entry FROM memory_entries
            WHERE account_id = ${accountId} AND key = ANY(${named}::text[]) ORDER BY key FOR UPDATE`,
          );
          change = run({ found, count: Number(seq?.memory ?? 0) });
        }
        const put = change.put ?? [];
        const remove = (change.remove ?? []).filter((k) => found.has(k));
        const added = put.filter((e) => !found.has(e.key)).length;
        if (put.length > 0) {
          // Entries as text cast in SQL, as every other record (postgres-store.ts, `json`).
          await tx`INSERT INTO memory_entries (account_id, key, due_at, entry)
            SELECT ${accountId}::text, k, d, e::json
            FROM unnest(${put.map((e) => e.key)}::text[], ${put.map(memoryDueAt)}::float8[], ${put.map((e) => JSON.stringify(e))}::text[])
              AS t(k, d, e)
            ON CONFLICT (account_id, key) DO UPDATE SET due_at = EXCLUDED.due_at, entry = EXCLUDED.entry`;
        }
        if (remove.length > 0) await tx`DELETE FROM memory_entries WHERE account_id = ${accountId} AND key = ANY(${remove}::text[])`;
        if (added !== remove.length)
          await tx`UPDATE account_seq SET memory = memory + ${added - remove.length} WHERE account_id = ${accountId}`;
        // Announced at commit: every server drops what it keeps of the account (its counts).
        if (put.length > 0 || remove.length > 0) await tx`SELECT pg_notify(${ACCOUNTS_CHANNEL}, ${accountId})`;
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
