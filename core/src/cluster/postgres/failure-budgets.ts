// Failure budgets shared by the servers of one database (failed authentications per client
// address): every failure is counted in the shared window (cluster.ts's limiter, one
// statement per failure, as before), but the question every keyed request asks — "is this
// address over its budget?" — is answered from memory. Failures are rare; that question came
// with every request, and on PostgreSQL it was a read per request.
//
// How every server knows: the failure that fills an address's window NOTIFYs
// `presence_rate_blocks` with the address and the moment its oldest failure leaves the window;
// each server keeps those blocks (only blocked ids, dropped once past) and refuses the address
// until then. A server that starts, or whose listening connection came back, reads the
// blocks standing in the table. The window this leaves: a server that has not yet heard of a
// block (the notification's delivery, well under a millisecond; or a reconnection) lets the
// address try once more — that failure is still counted, answered 401, and its own count
// says the window is full, so that server blocks it from then on. Every failure counts on
// every server, as the cluster contract says; at most one more attempt per server slips in.

import type { RateDecision } from '../../ratelimit/sliding-window';
import type { Database } from '../../store/postgres/database';
import { retryingLostConnection } from '../../store/postgres/database-error';
import type { SharedRateLimiter } from '../cluster-port';

export const BLOCKS_CHANNEL = 'presence_rate_blocks';
/** Blocked ids a server keeps at most (each needs `limit` failures of its own). */
const MAX_BLOCKS = 100_000;

type Blocks = Map<string, number>;
export type BlockNotice = { scope: string; id: string; until: number };

export const parseBlockNotice = (payload: string): BlockNotice | null => {
  try {
    const o = JSON.parse(payload) as { s?: unknown; i?: unknown; u?: unknown };
    return typeof o.s === 'string' && typeof o.i === 'string' && typeof o.u === 'number' ? { scope: o.s, id: o.i, until: o.u } : null;
  } catch {
    return null;
  }
};

/** Where a budget's blocks are kept and how they are announced, per scope. */
export function createFailureBudgets(sql: Database, clock: { now(): number }, onError: (e: unknown) => void) {
  const scopes = new Map<string, { blocks: Blocks; reload(): Promise<void> }>();

  const block = (blocks: Blocks, id: string, until: number) => {
    if (until <= clock.now()) return;
    if (blocks.size >= MAX_BLOCKS) {
      const now = clock.now();
      for (const [k, u] of blocks) if (u <= now) blocks.delete(k);
      if (blocks.size >= MAX_BLOCKS) blocks.delete(blocks.keys().next().value as string);
    }
    blocks.set(id, Math.max(blocks.get(id) ?? 0, until));
  };

  return {
    /** A notice from the LISTEN connection. */
    heard(payload: string) {
      const n = parseBlockNotice(payload);
      const s = n && scopes.get(n.scope);
      if (n && s) block(s.blocks, n.id, n.until);
    },
    /** Notices may have been missed: read the standing blocks again. */
    resync() {
      for (const s of scopes.values()) s.reload().catch(onError);
    },
    /**
     * The budget of `scope` over `counted` (the shared limiter of that scope, with `limit` and
     * `windowMs`): peek answers from memory, hit counts in the table and announces a block.
     */
    budget(scope: string, { limit, windowMs }: { limit: number; windowMs: number }, counted: SharedRateLimiter) {
      const blocks: Blocks = new Map();
      const reload = async () => {
        const now = clock.now();
        // Only the exact shape keeps the times a block ends by; a bucket budget (over 1,000 a
        // window) learns its blocks from notices and its own count.
        const rows = await sql<{ id: string; oldest: number }[]>`SELECT id, (SELECT min(t) FROM unnest(times) t) AS oldest
          FROM rate_logs WHERE scope = ${scope} AND cardinality(ARRAY(SELECT t FROM unnest(times) t WHERE t > ${now - windowMs})) >= ${limit}`;
        for (const r of rows) block(blocks, r.id, Number(r.oldest) + windowMs);
      };
      scopes.set(scope, { blocks, reload });
      reload().catch(onError);
      const port: SharedRateLimiter = {
        // From memory alone, so at once: every request that presents a key asks.
        peek(id): RateDecision {
          const now = clock.now();
          const until = blocks.get(id);
          if (until !== undefined && until > now)
            return { allowed: false, limit, remaining: 0, resetS: Math.max(1, Math.ceil((until - now) / 1000)) };
          if (until !== undefined) blocks.delete(id);
          // Not blocked: how much of the budget is used is not known here, and not asked.
          return { allowed: true, limit, remaining: limit, resetS: 0 };
        },
        async hit(id) {
          const d = await counted.hit(id);
          if (d.remaining === 0) {
            const until = (d as RateDecision & { freesAt?: number }).freesAt ?? clock.now() + d.resetS * 1000;
            block(blocks, id, until);
            // A notice sent twice blocks no longer than once.
            await retryingLostConnection(`rate limit ${scope}`, () =>
              sql`SELECT pg_notify(${BLOCKS_CHANNEL}, ${JSON.stringify({ s: scope, i: id, u: until })})`.then(() => undefined),
            );
          }
          return d;
        },
      };
      return port;
    },
  };
}
