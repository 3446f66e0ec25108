// The redeem budget of a surface token. A bot redeems for many chat users through one token,
// so failures are counted per surface user (`user_id`): one user's wrong or stale codes close
// redemption for that user only, never for the bot's other users, another surface, or
// redeemers without a token (whose guard is redeem-guard.ts). A user's attempts are capped too
// (30 per 10 minutes, counted as they arrive), and a refused user's attempts are not counted
// against the token at all, so no user can spend the token's windows either.
// The token's own windows (attempts, and failures across all its users) are far above what
// one user can reach, and are there only for a leaked token used to guess.
//
// Guessing, for a token used to guess at its whole failure budget (10,000 per 10 minutes, all
// year: 5.3 × 10^8 guesses) against a million live codes (each 20 symbols of 32, 100 bits,
// 1.3 × 10^30 possible): expected hits in a year 5.3 × 10^8 × 10^6 / 1.3 × 10^30 ≈ 4 × 10^-16.
// One user at its 10 failures per 10 minutes: 5.3 × 10^5 guesses a year, ≈ 4 × 10^-19.

import { PresenceError } from '../errors/presence-error';
import type { RedeemAttempt } from '../links/redeem-guard';
import type { RateDecision, RateLimiterPort } from '../ratelimit/sliding-window';

type Window = { limit: number; windowMs: number };
export type SurfaceRedeemLimits = { attempts: Window; failures: Window; userAttempts: Window; userFailures: Window };

/** A bot links its users one at a time, but many at once after an announcement: 600 a minute. */
export const defaultSurfaceRedeemLimits: SurfaceRedeemLimits = {
  attempts: { limit: 600, windowMs: 60_000 },
  failures: { limit: 10_000, windowMs: 600_000 },
  // Counted as they arrive, so a burst of parallel guesses by one user stops here too.
  userAttempts: { limit: 30, windowMs: 600_000 },
  userFailures: { limit: 10, windowMs: 600_000 },
};

export function createSurfaceRedeemGuard({
  limits = defaultSurfaceRedeemLimits,
  rateLimiterFor,
}: {
  limits?: SurfaceRedeemLimits;
  rateLimiterFor: (scope: string, opts: Window) => RateLimiterPort;
}) {
  const attempts = rateLimiterFor('redeem-surface', limits.attempts);
  const failures = rateLimiterFor('redeem-surface-failures', limits.failures);
  const userAttempts = rateLimiterFor('redeem-surface-user', limits.userAttempts);
  const userFailures = rateLimiterFor('redeem-surface-user-failures', limits.userFailures);
  const refused = (rate: RateDecision, detail: string, retryAfter: number): RedeemAttempt => ({
    rate,
    refusal: new PresenceError('rate_limited', `${detail}; retry in ${retryAfter} s`, { retryAfter }),
    settle() {},
  });
  return {
    async attempt(surfaceId: string, userId: string): Promise<RedeemAttempt> {
      // The user's own budget first: a user past it costs the token's windows nothing.
      const user = `${surfaceId}:${userId}`;
      const tried = await userAttempts.hit(user);
      if (!tried.allowed) return refused(tried, 'too many redeem attempts for this surface user', tried.resetS);
      const mine = await userFailures.peek(user);
      if (!mine.allowed) return refused(mine, 'too many failed redemptions for this surface user', mine.resetS);
      const rate = await attempts.hit(surfaceId);
      if (!rate.allowed) return refused(rate, 'too many redeem attempts with this surface token', rate.resetS);
      const failed = await failures.peek(surfaceId);
      if (!failed.allowed) return refused(rate, 'too many failed redemptions with this surface token', failed.resetS);
      let settled = false;
      return {
        rate,
        refusal: null,
        settle(outcome) {
          if (settled) return;
          settled = true;
          if (outcome === 'failed') void Promise.all([userFailures.hit(user), failures.hit(surfaceId)]).catch(() => undefined);
        },
      };
    },
  };
}
