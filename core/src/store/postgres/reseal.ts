// Re-seals the database's secrets for a master key rotation (store/rotate-master-key.ts):
// one UPDATE per changed record, each its own transaction. Every server on the database must
// be stopped first: one still running would seal new answers under the old key.
import postgres from 'postgres';
import { type StoredIdempotencyRecord, WalletRecord } from '../documents';
import type { ResealCounts, Resealer } from '../rotate-master-key';

const BATCH = 500;

export async function resealPostgres(url: string, reseal: Resealer): Promise<ResealCounts> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined, connect_timeout: 10 });
  const counts: ResealCounts = { wallets: 0, answers: 0 };
  try {
    for (const row of await sql<{ account_id: string; doc: unknown }[]>`SELECT account_id, doc FROM wallets`) {
      const next = reseal.wallet(WalletRecord.parse(row.doc));
      if (!next) continue;
      await sql`UPDATE wallets SET doc = ${JSON.stringify(next)}::text::json WHERE account_id = ${row.account_id}`;
      counts.wallets++;
    }
    // In key order, a page at a time: the answers of a busy day can be many.
    let after = { account_id: '', key: '' };
    for (;;) {
      const rows = await sql<{ account_id: string; key: string; record: StoredIdempotencyRecord }[]>`
        SELECT account_id, key, record FROM idempotency
        WHERE (account_id, key) > (${after.account_id}, ${after.key}) ORDER BY account_id, key LIMIT ${BATCH}`;
      for (const row of rows) {
        const next = reseal.answer(row.account_id, row.record);
        if (!next) continue;
        await sql`UPDATE idempotency SET record = ${JSON.stringify(next)}::text::json WHERE account_id = ${row.account_id} AND key = ${row.key}`;
        counts.answers++;
      }
      const last = rows.at(-1);
      if (!last || rows.length < BATCH) break;
      after = { account_id: last.account_id, key: last.key };
    }
    return counts;
  } finally {
    await sql.end();
  }
}
