import { describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createRedeemGuard, type RedeemLimits } from './redeem-guard';

const limits: RedeemLimits = {
  perAddress: { limit: 3, windowMs: 60_000 },
  failures: { limit: 4, windowMs: 600_000 },
  lockdown: { limit: 2, windowMs: 60_000 },
};

describe('redeem guard', () => {
  it('limits attempts per address, with the window as Retry-After', () => {
    const clock = createManualClock(0);
    const g = createRedeemGuard({ clock, limits });
    for (let i = 0; i < 3; i++) g.attempt('a').settle('redeemed');
    const r = g.attempt('a');
    expect(r.refusal).toMatchObject({ type: 'rate_limited', retryAfter: 60 });
    expect(r.rate).toMatchObject({ allowed: false, remaining: 0 });
    expect(g.attempt('b').refusal).toBeNull();
  });

  it('past the failure budget refuses addresses that failed, lets clean ones through at the lockdown rate', () => {
    const clock = createManualClock(0);
    const g = createRedeemGuard({ clock, limits });
    for (const address of ['a', 'b', 'c', 'd']) g.attempt(address).settle('failed');
    clock.advance(30_000);
    const dirty = g.attempt('a');
    // Until its own failure or the oldest failure leaves the 10-minute window: 570 s.
    expect(dirty.refusal).toMatchObject({ type: 'rate_limited', retryAfter: 570 });
    const passes = [g.attempt('x'), g.attempt('y')];
    expect(passes.map((p) => p.refusal)).toEqual([null, null]);
    const third = g.attempt('z');
    expect(third.refusal).toMatchObject({ type: 'rate_limited', retryAfter: 60 });
    passes[0]?.settle('redeemed');
    passes[1]?.settle('failed'); // y is now dirty too
    clock.advance(60_000);
    expect(g.attempt('y').refusal).not.toBeNull();
    expect(g.attempt('z').refusal).toBeNull();
    // The window passes: everyone is served again.
    clock.advance(600_000);
    expect(['a', 'y'].map((address) => g.attempt(address).refusal)).toEqual([null, null]);
  });

  it('counts attempts in flight as failures, so a parallel burst cannot overshoot the budget', () => {
    const clock = createManualClock(0);
    const g = createRedeemGuard({ clock, limits });
    const burst = Array.from({ length: 10 }, (_, i) => g.attempt(`h${i}`));
    // 4 within the budget, then the lockdown's 2 passes; the other 4 wait.
    expect(burst.filter((a) => a.refusal === null)).toHaveLength(6);
    for (const a of burst) a.settle('failed');
    // A settled attempt that did not fail gives its slot back.
    clock.advance(600_000);
    const ok = g.attempt('fresh');
    ok.settle('neither');
    ok.settle('failed'); // settling twice changes nothing
    expect(
      Array.from({ length: 4 }, (_, i) => g.attempt(`n${i}`))
        .map((a) => a.refusal)
        .every((r) => r === null),
    ).toBe(true);
  });
});
