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

  it('resetS is the time until the oldest request in the window leaves it, also while requests remain', () => {
    const clock = createManualClock(0);
    const rl = createRateLimiter({ limit: 5, windowMs: 10_000, clock });
    expect(rl.hit('k')).toMatchObject({ allowed: true, remaining: 4, resetS: 10 }); // t=0: its own request
    clock.set(3_000);
    expect(rl.hit('k')).toMatchObject({ remaining: 3, resetS: 7 }); // the t=0 request leaves at 10 s
    clock.set(9_500);
    expect(rl.hit('k')).toMatchObject({ remaining: 2, resetS: 1 }); // 0.5 s rounds up
    clock.set(10_000); // t=0 has left; the oldest is now t=3 s
    expect(rl.hit('k')).toMatchObject({ remaining: 2, resetS: 3 });
    clock.set(60_000); // everything left: the window holds only this request
    expect(rl.hit('k')).toMatchObject({ remaining: 4, resetS: 10 });
  });
});

describe('sliding-window limiter: peek and forgetting', () => {
  it('peek tells whether a hit would pass without counting one', () => {
    const clock = createManualClock(0);
    const rl = createRateLimiter({ limit: 2, windowMs: 10_000, clock });
    expect(rl.peek('k')).toEqual({ allowed: true, limit: 2, remaining: 2, resetS: 0 });
    rl.hit('k');
    expect(rl.peek('k')).toMatchObject({ allowed: true, remaining: 1 });
    expect(rl.peek('k')).toMatchObject({ allowed: true, remaining: 1 });
    clock.set(4_000);
    rl.hit('k');
    expect(rl.peek('k')).toEqual({ allowed: false, limit: 2, remaining: 0, resetS: 6 });
    clock.set(10_000);
    expect(rl.peek('k')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('forgets idle ids by itself once a window, so one-off ids do not pile up', () => {
    const clock = createManualClock(0);
    const rl = createRateLimiter({ limit: 5, windowMs: 1_000, clock });
    for (let i = 0; i < 1000; i++) rl.hit(`addr${i}`);
    expect(rl.ids).toBe(1000);
    clock.advance(1_000);
    rl.hit('later');
    expect(rl.ids).toBe(1);
  });
});
