// The budget of link-code redemptions. Redeeming needs no key, so a code must be safe against
// guessing on its own: it is 20 symbols of 32 (100 bits, about 1.3 × 10^30) and lives 10
// minutes by default (24 h at most). The only limit is per client address: 10 attempts a
// minute (the RateLimit-* headers on redeem; an IPv6 address counts as its /64). There is no
// server-wide budget on purpose: any budget shared by everyone can be spent by someone with
// enough addresses, and then nobody can link (a 40-bit code needed one; this one does not).
//
// The arithmetic, for an attacker far larger than any real one: 4 × 10^9 addresses (an entire
// IPv6 /32 of /64s) each at its 10 a minute all year make 2.1 × 10^16 guesses. Against a
// million codes live at every moment (20 per account across 50,000 accounts), the expected
// number of hits in that year is 2.1 × 10^16 × 10^6 / 1.3 × 10^30 ≈ 1.7 × 10^-8.
// Attempts are counted as they arrive, so a burst of parallel guesses cannot overshoot.
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import { createRateLimiter, type RateDecision } from '../ratelimit/sliding-window';

export type RedeemLimits = { perAddress: { limit: number; windowMs: number } };

export const defaultRedeemLimits: RedeemLimits = { perAddress: { limit: 10, windowMs: 60_000 } };

export type RedeemOutcome = 'redeemed' | 'failed' | 'neither';

/** One redeem attempt: the per-address figures for the headers, and a refusal or none. */
export type RedeemAttempt = {
  rate: RateDecision;
  refusal: PresenceError | null;
  /** Call once with how it went (kept for callers; the guard counts attempts, not outcomes). */
  settle(outcome: RedeemOutcome): void;
};

export const redeemRefusal = (rate: RateDecision) =>
  new PresenceError('rate_limited', `too many redeem attempts from this address; retry in ${rate.resetS} s`, {
    retryAfter: rate.resetS,
  });

/** An attempt under a per-address decision. */
export const attemptUnder = (rate: RateDecision): RedeemAttempt => ({
  rate,
  refusal: rate.allowed ? null : redeemRefusal(rate),
  settle() {},
});

export function createRedeemGuard({ clock, limits = defaultRedeemLimits }: { clock: Clock; limits?: RedeemLimits }) {
  const attempts = createRateLimiter({ ...limits.perAddress, clock });
  return { attempt: (address: string): RedeemAttempt => attemptUnder(attempts.hit(address)) };
}
