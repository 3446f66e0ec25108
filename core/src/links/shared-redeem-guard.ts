// The redeem guard (redeem-guard.ts) when several servers share one database: the same
// per-address limit, counted by every server through a shared sliding window (cluster-port.ts).
import type { RateLimiterPort } from '../ratelimit/sliding-window';
import { attemptUnder, type RedeemAttempt, type RedeemLimits } from './redeem-guard';

export function createSharedRedeemGuard({
  limits,
  rateLimiterFor,
}: {
  limits: RedeemLimits;
  rateLimiterFor: (scope: string, opts: { limit: number; windowMs: number }) => RateLimiterPort;
}) {
  const attempts = rateLimiterFor('redeem-address', limits.perAddress);
  return { attempt: async (address: string): Promise<RedeemAttempt> => attemptUnder(await attempts.hit(address)) };
}
