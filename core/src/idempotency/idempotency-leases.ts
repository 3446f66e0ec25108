// Idempotency-Key leases: which server runs the first request of a key, for what request
// (its fingerprint) and until when. Coordination between servers, not a record kept for the
// account, so a port of its own rather than part of the store: in memory where one process
// serves the keys (an embedded install, test keys' overlay), in a table every server sees on
// PostgreSQL (cluster/postgres/idempotency-leases.ts).

/** An Idempotency-Key whose first request is running: who runs it, for what, until when (ms epoch). */
export type InFlightClaim = { owner: string; fingerprint: string; expires_at: number };

export type IdempotencyLeases = {
  /**
   * Claims the key for `claim.owner` unless another owner holds a lease that has not expired
   * at `now`; answers the lease that holds afterwards (the caller's own when it got it). Every
   * server sees the same leases, so a duplicate request anywhere waits for the first.
   */
  claim(accountId: string, key: string, claim: InFlightClaim, now: number): Promise<InFlightClaim>;
  /** Extends the owner's lease; false when it is no longer the owner's (it expired and was taken over). */
  renew(accountId: string, key: string, owner: string, expiresAt: number): Promise<boolean>;
  /** Drops the owner's lease (its answer is stored, or it gave up); another owner's is left alone. */
  release(accountId: string, key: string, owner: string): Promise<void>;
  /** Drops leases that ended before `before` (their owners are gone). */
  prune(before: number): Promise<void>;
};

export function createMemoryLeases(): IdempotencyLeases {
  const leases = new Map<string, InFlightClaim>();
  const slot = (accountId: string, key: string) => `${accountId}\0${key}`;
  return {
    async claim(accountId, key, claim, now) {
      const held = leases.get(slot(accountId, key));
      if (held && held.owner !== claim.owner && held.expires_at > now) return { ...held };
      leases.set(slot(accountId, key), { ...claim });
      return { ...claim };
    },
    async renew(accountId, key, owner, expiresAt) {
      const held = leases.get(slot(accountId, key));
      if (held?.owner !== owner) return false;
      held.expires_at = expiresAt;
      return true;
    },
    async release(accountId, key, owner) {
      if (leases.get(slot(accountId, key))?.owner === owner) leases.delete(slot(accountId, key));
    },
    async prune(before) {
      for (const [k, c] of leases) if (c.expires_at < before) leases.delete(k);
    },
  };
}
