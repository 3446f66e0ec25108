// The budget of link-code redemptions: what stops anyone searching the code space. A code
// is 8 symbols of 32 (40 bits, about 1.1 × 10^12) and lives 10 minutes by default; redeeming
// needs no key, so guesses are limited in three layers:
//
// 1. Each client address may try 10 times a minute (the RateLimit-* headers on redeem).
// 2. Failed redemptions are counted server-wide: at most 100 in any 10 minutes before the
//    guard steps in ("lockdown"). No spread of addresses gets past this one.
// 3. In lockdown, an address with a failure in the last 10 minutes is refused without its
//    code being looked at; an address without one is still served, but all of them together
//    at most 10 a minute. So one noisy address (a bot retrying a stale code) only locks out
//    itself, and users redeeming a good code from a clean address get through.
//
// Wrong guesses the server checks are then at most ~100 per 10 minutes plus 10 a minute:
// ~1,200 an hour, ~10^7 a year. With 10 codes always live, the chance that a year of
// non-stop guessing finds one is about 10^7 × 10 / 1.1 × 10^12 ≈ 10^-4. Attempts in flight
// count as failures until they settle, so a burst of parallel guesses cannot overshoot.
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import { createRateLimiter, type RateDecision } from '../ratelimit/sliding-window';

export type RedeemLimits = {
  perAddress: { limit: number; windowMs: number };
  failures: { limit: number; windowMs: number };
  lockdown: { limit: number; windowMs: number };
};

export const defaultRedeemLimits: RedeemLimits = {
  perAddress: { limit: 10, windowMs: 60_000 },
  failures: { limit: 100, windowMs: 600_000 },
  lockdown: { limit: 10, windowMs: 60_000 },
};

export type RedeemOutcome = 'redeemed' | 'failed' | 'neither';

/** One redeem attempt: the per-address figures for the headers, a refusal, or a pass to settle. */
export type RedeemAttempt = {
  rate: RateDecision;
  refusal: PresenceError | null;
  /** Call once with how it went; a failure counts against the address and the server-wide budget. */
  settle(outcome: RedeemOutcome): void;
};

const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));

export function createRedeemGuard({ clock, limits = defaultRedeemLimits }: { clock: Clock; limits?: RedeemLimits }) {
  const attempts = createRateLimiter({ ...limits.perAddress, clock });
  const lockdownPasses = createRateLimiter({ ...limits.lockdown, clock });
  const window = limits.failures.windowMs;
  /** Times of failed redemptions in the window, oldest first. */
  let failures: number[] = [];
  let inFlight = 0;
  const lastFailure = new Map<string, number>();
  let lastSweep = clock.now();

  function expire(now: number) {
    const cutoff = now - window;
    let i = 0;
    while (i < failures.length && (failures[i] as number) <= cutoff) i++;
    if (i > 0) failures = failures.slice(i);
    if (now - lastSweep >= window) {
      lastSweep = now;
      for (const [address, at] of lastFailure) if (at <= cutoff) lastFailure.delete(address);
    }
  }

  /** When the server-wide budget has room again (attempts in flight counted as failures). */
  function lockdownEndsAt(): number | null {
    const over = failures.length + inFlight - limits.failures.limit;
    if (over < 0) return null;
    // The window frees the oldest failures first; in-flight ones may never become failures.
    const freeing = failures[Math.min(over, failures.length - 1)];
    return freeing === undefined ? clock.now() + 1000 : freeing + window;
  }

  const refuse = (detail: string, retryAfter: number) =>
    new PresenceError('rate_limited', `${detail}; retry in ${retryAfter} s`, { retryAfter });

  return {
    attempt(address: string): RedeemAttempt {
      const now = clock.now();
      expire(now);
      const rate = attempts.hit(address);
      const refused = (refusal: PresenceError): RedeemAttempt => ({ rate, refusal, settle() {} });
      if (!rate.allowed) return refused(refuse('too many redeem attempts from this address', rate.resetS));
      const endsAt = lockdownEndsAt();
      if (endsAt !== null) {
        const failedAt = lastFailure.get(address);
        if (failedAt !== undefined && failedAt > now - window) {
          const at = Math.min(endsAt, failedAt + window);
          return refused(
            refuse('too many failed redemptions server-wide: addresses with a recent failed attempt must wait', secondsUntil(at, now)),
          );
        }
        const pass = lockdownPasses.hit('all');
        if (!pass.allowed) {
          const at = Math.min(endsAt, now + pass.resetS * 1000);
          return refused(refuse('too many failed redemptions server-wide: redeeming is slowed for everyone', secondsUntil(at, now)));
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
          const at = clock.now();
          failures.push(at);
          lastFailure.set(address, at);
        },
      };
    },
  };
}
