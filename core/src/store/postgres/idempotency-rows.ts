// Idempotency-Key answers on PostgreSQL (table idempotency): sealed under the master key
// before they are written (sealed-answers.ts), opened on the way out.
import { StoredIdempotencyRecord } from '../documents';
import type { IdempotencyPort } from '../idempotency-port';
import type { SealedAnswers } from '../sealed-answers';
import { json } from './records';
import type { Runner } from './unit-of-work';

export function idempotencyRows(run: Runner, answers: SealedAnswers): IdempotencyPort {
  const { sql } = run;
  return {
    async getIdempotencyRecord(accountId, key) {
      const [row] = await sql<{ record: unknown }[]>`SELECT record FROM idempotency WHERE account_id = ${accountId} AND key = ${key}`;
      return row ? answers.open(accountId, StoredIdempotencyRecord.parse(row.record)) : null;
    },
    async putIdempotencyRecord(accountId, record) {
      const stored = answers.seal(accountId, record);
      await sql`INSERT INTO idempotency (account_id, key, created_at, record)
      VALUES (${accountId}, ${stored.key}, ${stored.created_at}, ${json(stored)}::text::json)
      ON CONFLICT (account_id, key) DO UPDATE SET created_at = EXCLUDED.created_at, record = EXCLUDED.record`;
    },
    async pruneIdempotency(olderThan) {
      return (await sql`DELETE FROM idempotency WHERE created_at < ${olderThan}`).count;
    },
  };
}
