import { describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createRateLimiter, parseRateLimit } from './sliding-window';

describe('sliding-window rate limiter', () => {
  it('parses <count>/<window><unit>', () => {
    expect(parseRateLimit('120/60s')).toEqual({ limit: 120, windowMs: 60_000 });
    expect(parseRateLimit('5/1m')).toEqual({ limit: 5, windowMs: 60_000 });
    expect(parseRateLimit('0/1s')).toBeNull();
    expect(parseRateLimit('lots')).toBeNull();
  });

  it('allows `limit` in any window and refuses the next with a retry time', () => {
    const clock = createManualClock(0);
    const rl = createRateLimiter({ limit: 3, windowMs: 10_000, clock });
    expect([rl.hit('k'), rl.hit('k'), rl.hit('k')].map((d) => d.remaining)).toEqual([2, 1, 0]);
    const refused = rl.hit('k');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetS: 10 });
    expect(rl.hit('other').allowed).toBe(true);
  });

  it('slides: no burst across a bucket edge, and capacity returns request by request', () => {
    const clock = createManualClock(0);
    const rl = createRateLimiter({ limit: 4, windowMs: 10_000, clock });
    rl.hit('k'); // t=0
    clock.set(9_000);
    rl.hit('k');
    rl.hit('k');
    rl.hit('k'); // t=9s: 4 in window
    clock.set(10_500); // a fixed 10 s bucket would reset here and allow 4 more
    expect(rl.hit('k').allowed).toBe(true); // only the t=0 request has left the window
    const refused = rl.hit('k');
    expect(refused.allowed).toBe(false);
    expect(refused.resetS).toBe(Math.ceil((9_000 + 10_000 - 10_500) / 1000));
    clock.set(19_000); // exactly one window after t=9s: those three leave together
    expect(rl.hit('k').remaining).toBe(2);
  });
});
