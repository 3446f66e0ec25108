import { describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createRedeemGuard, type RedeemLimits } from './redeem-guard';

const limits: RedeemLimits = { perAddress: { limit: 3, windowMs: 60_000 } };

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

  it('has no server-wide budget: failures from any number of addresses never refuse a clean one', () => {
    const clock = createManualClock(0);
    const g = createRedeemGuard({ clock, limits });
    for (let i = 0; i < 10_000; i++) g.attempt(`bad-${i}`).settle('failed');
    expect(g.attempt('clean').refusal).toBeNull();
  });
});
