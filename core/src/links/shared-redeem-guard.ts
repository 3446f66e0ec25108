// The redeem guard (redeem-guard.ts) when several servers share one database: the same three
// layers, counted by every server through shared sliding windows (cluster-port.ts):
// attempts per address, the deployment-wide failure budget, which addresses failed lately,
// and the passes handed out in lockdown. Two things stay per server and are approximations:
// attempts in flight count as failures only on the server running them, and an address with
// a failure waits until the budget has room again (the embedded guard can also let it go
// sooner, when its own last failure leaves the window first).
import { PresenceError } from '../errors/presence-error';
import type { RateLimiterPort } from '../ratelimit/sliding-window';
import type { RedeemAttempt, RedeemLimits } from './redeem-guard';

const refuse = (detail: string, retryAfter: number) =>
  new PresenceError('rate_limited', `${detail}; retry in ${retryAfter} s`, { retryAfter });

export function createSharedRedeemGuard({
  limits,
  rateLimiterFor,
}: {
  limits: RedeemLimits;
  rateLimiterFor: (scope: string, opts: { limit: number; windowMs: number }) => RateLimiterPort;
}) {
  const attempts = rateLimiterFor('redeem-address', limits.perAddress);
  // Counts failures past the budget too (clean addresses keep failing in lockdown), up to a
  // bound far above it: the count only has to say "over the budget".
  const failuresCap = limits.failures.limit * 10;
  const failures = rateLimiterFor('redeem-failures', { limit: failuresCap, windowMs: limits.failures.windowMs });
  const failedAddresses = rateLimiterFor('redeem-failed-address', { limit: 1, windowMs: limits.failures.windowMs });
  const lockdownPasses = rateLimiterFor('redeem-lockdown', limits.lockdown);
  let inFlight = 0;

  return {
    async attempt(address: string): Promise<RedeemAttempt> {
      const rate = await attempts.hit(address);
      const refused = (refusal: PresenceError): RedeemAttempt => ({ rate, refusal, settle() {} });
      if (!rate.allowed) return refused(refuse('too many redeem attempts from this address', rate.resetS));
      const budget = await failures.peek('all');
      const used = failuresCap - budget.remaining;
      if (used + inFlight >= limits.failures.limit) {
        const endsIn = Math.max(1, budget.resetS);
        if (!(await failedAddresses.peek(address)).allowed) {
          return refused(refuse('too many failed redemptions server-wide: addresses with a recent failed attempt must wait', endsIn));
        }
        const pass = await lockdownPasses.hit('all');
        if (!pass.allowed) {
          return refused(
            refuse('too many failed redemptions server-wide: redeeming is slowed for everyone', Math.min(endsIn, pass.resetS)),
          );
        }
      }
      inFlight++;
      let settled = false;
      return {
        rate,
        refusal: null,
        settle(outcome) {
          if (settled) return;
          settled = true;
          inFlight--;
          if (outcome !== 'failed') return;
          // Counted where every server sees it; a failure to count is not the redeemer's problem.
          void Promise.all([failures.hit('all'), failedAddresses.hit(address)]).catch(() => undefined);
        },
      };
    },
  };
}
