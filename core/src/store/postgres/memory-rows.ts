// Memory entries on PostgreSQL (table memory_entries, migration 0004): one row per entry, so a
// pin reads and writes the rows it names and never the rest of what the account keeps. The
// account's entry count lives on its account_seq row; taking that row's lock first serializes
// the account's memory changes on every server, so the cap is checked against a count no
// concurrent change can move. One transaction per change.
import type postgres from 'postgres';
import { MemoryEntry, memoryDueAt } from '../documents';
import type { MemoryPeek, StorePort } from '../store-port';
import { CallerError } from './database-error';

type Row = { key: string; entry: unknown };

const byKey = (rows: readonly Row[]) => new Map(rows.map((r) => [r.key, MemoryEntry.parse(r.entry)]));

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
      let out: { result: unknown } | undefined;
      await sql.begin(async (tx) => {
        // Creates the counter row on the first change and locks it either way, in one round trip.
        const [seq] = await tx<{ memory: string }[]>`INSERT INTO account_seq AS s (account_id) VALUES (${accountId})
          ON CONFLICT (account_id) DO UPDATE SET memory = s.memory RETURNING memory`;
        const rows = await tx<Row[]>`SELECT key, entry FROM memory_entries
          WHERE account_id = ${accountId} AND key = ANY(${[...keys]}::text[])`;
        const found = byKey(rows);
        let change: ReturnType<typeof decide>;
        try {
          change = decide({ found, count: Number(seq?.memory ?? 0) });
        } catch (e) {
          throw new CallerError(e);
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
