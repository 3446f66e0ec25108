// Idempotency-Key leases on PostgreSQL (table idempotency_claims, migration 0002): one row per
// key whose first request runs somewhere, with its owner's lease. Taking a lease is one
// upsert that succeeds only when the key is free, the lease ran out (the owner died) or it is
// already the caller's, so two servers can never both hold one.
//
// Every statement here may run twice (taking or renewing the caller's own lease, dropping it),
// so one that met a lost connection runs again on a fresh one; a second failure is the
// store's 503 store_unavailable, as for every store operation, never a 500.
import type { IdempotencyLeases, InFlightClaim } from '../../idempotency/idempotency-leases';
import { type DatabaseSource, useDatabase } from '../../store/postgres/database';
import { retryingLostConnection } from '../../store/postgres/database-error';

export function createPostgresIdempotencyLeases(source: DatabaseSource): IdempotencyLeases & { close(): Promise<void> } {
  const { sql, end } = useDatabase(source, 2);
  return {
    claim: (accountId, key, claim, now) => retryingLostConnection('idempotency claim', () => take(accountId, key, claim, now)),
    renew: (accountId, key, owner, expiresAt) =>
      retryingLostConnection('idempotency lease renewal', async () => {
        const r = await sql`UPDATE idempotency_claims SET expires_at = ${expiresAt}
          WHERE account_id = ${accountId} AND key = ${key} AND owner = ${owner}`;
        return r.count > 0;
      }),
    release: (accountId, key, owner) =>
      retryingLostConnection('idempotency lease release', async () => {
        await sql`DELETE FROM idempotency_claims WHERE account_id = ${accountId} AND key = ${key} AND owner = ${owner}`;
      }),
    prune: (before) =>
      retryingLostConnection('idempotency lease prune', async () => {
        await sql`DELETE FROM idempotency_claims WHERE expires_at < ${before}`;
      }),
    close: end,
  };

  async function take(accountId: string, key: string, claim: InFlightClaim, now: number): Promise<InFlightClaim> {
    for (;;) {
      // Taken when free, expired (its owner stopped renewing: gone), or already ours.
      const [taken] = await sql<InFlightClaim[]>`INSERT INTO idempotency_claims AS c (account_id, key, owner, fingerprint, expires_at)
        VALUES (${accountId}, ${key}, ${claim.owner}, ${claim.fingerprint}, ${claim.expires_at})
        ON CONFLICT (account_id, key) DO UPDATE
          SET owner = EXCLUDED.owner, fingerprint = EXCLUDED.fingerprint, expires_at = EXCLUDED.expires_at
          WHERE c.expires_at <= ${now} OR c.owner = EXCLUDED.owner
        RETURNING owner, fingerprint, expires_at`;
      if (taken) return { ...taken };
      const [held] = await sql<InFlightClaim[]>`SELECT owner, fingerprint, expires_at FROM idempotency_claims
        WHERE account_id = ${accountId} AND key = ${key}`;
      if (held) return { ...held };
      // Released between the two statements: try again.
    }
  }
}
