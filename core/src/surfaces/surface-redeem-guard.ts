// The redeem budget of a surface token: its own window of attempts and of failures, so one
// bot's stale codes (or a leaked token used to guess) close redemption for that token only,
// never for other surfaces or for redeemers without a token (whose guard is redeem-guard.ts).

import { PresenceError } from '../errors/presence-error';
import type { RedeemAttempt } from '../links/redeem-guard';
import type { RateLimiterPort } from '../ratelimit/sliding-window';

export type SurfaceRedeemLimits = { attempts: { limit: number; windowMs: number }; failures: { limit: number; windowMs: number } };

/** A bot links its users one at a time, but many at once after an announcement: 600 a minute. */
export const defaultSurfaceRedeemLimits: SurfaceRedeemLimits = {
  attempts: { limit: 600, windowMs: 60_000 },
  failures: { limit: 100, windowMs: 600_000 },
};

export function createSurfaceRedeemGuard({
  limits = defaultSurfaceRedeemLimits,
  rateLimiterFor,
}: {
  limits?: SurfaceRedeemLimits;
  rateLimiterFor: (scope: string, opts: { limit: number; windowMs: number }) => RateLimiterPort;
}) {
  const attempts = rateLimiterFor('redeem-surface', limits.attempts);
  const failures = rateLimiterFor('redeem-surface-failures', limits.failures);
  return {
    async attempt(surfaceId: string): Promise<RedeemAttempt> {
      const rate = await attempts.hit(surfaceId);
      const refused = (detail: string, retryAfter: number): RedeemAttempt => ({
        rate,
        refusal: new PresenceError('rate_limited', `${detail}; retry in ${retryAfter} s`, { retryAfter }),
        settle() {},
      });
      if (!rate.allowed) return refused('too many redeem attempts with this surface token', rate.resetS);
      const failed = await failures.peek(surfaceId);
      if (!failed.allowed) return refused('too many failed redemptions with this surface token', failed.resetS);
      let settled = false;
      return {
        rate,
        refusal: null,
        settle(outcome) {
          if (settled) return;
          settled = true;
          if (outcome === 'failed') void Promise.resolve(failures.hit(surfaceId)).catch(() => undefined);
        },
      };
    },
  };
}
