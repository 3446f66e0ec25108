// Idempotency-Key claims kept in memory: enough for a store only one process uses (the
// embedded store's data directory has one owner; the test keys' overlay lives in one
// server). The PostgreSQL adapter keeps them in a table, where every server sees them.
import type { InFlightClaim, StorePort } from './store-port';

export type ClaimOps = Pick<StorePort, 'claimIdempotencyKey' | 'renewIdempotencyClaim' | 'releaseIdempotencyClaim'> & {
  /** Drops claims whose lease ended before `before` (their owner is gone). */
  pruneClaims(before: number): void;
};

export function createClaimTable(): ClaimOps {
  const claims = new Map<string, InFlightClaim>();
  const slot = (accountId: string, key: string) => `${accountId}\0${key}`;
  return {
    async claimIdempotencyKey(accountId, key, claim, now) {
      const held = claims.get(slot(accountId, key));
      if (held && held.owner !== claim.owner && held.expires_at > now) return { ...held };
      claims.set(slot(accountId, key), { ...claim });
      return { ...claim };
    },
    async renewIdempotencyClaim(accountId, key, owner, expiresAt) {
      const held = claims.get(slot(accountId, key));
      if (held?.owner !== owner) return false;
      held.expires_at = expiresAt;
      return true;
    },
    async releaseIdempotencyClaim(accountId, key, owner) {
      if (claims.get(slot(accountId, key))?.owner === owner) claims.delete(slot(accountId, key));
    },
    pruneClaims(before) {
      for (const [k, c] of claims) if (c.expires_at < before) claims.delete(k);
    },
  };
}
