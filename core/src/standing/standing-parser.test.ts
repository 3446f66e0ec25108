import { describe, expect, it } from 'vitest';
import { PresenceError } from '../errors/presence-error';
import { parseStanding, STANDING_OPENING } from './standing-parser';

const problem = (text: string) => {
  try {
    parseStanding(text);
  } catch (e) {
    if (e instanceof PresenceError) return { type: e.type, detail: e.detail };
    throw e;
  }
  return null;
};

describe('parseStanding', () => {
  it('reads the three forms', () => {
    expect(parseStanding('tell me when WETH is below 2,500.5 USD')).toEqual({
      trigger: { kind: 'price', token: 'WETH', op: 'below', threshold_usd: (25005n * 10n ** 17n).toString() },
      action: { kind: 'notify' },
    });
    expect(parseStanding('every day at 9:05 tell me my balance')).toEqual({
      trigger: { kind: 'daily', at: '09:05' },
      action: { kind: 'balance' },
    });
    expect(parseStanding('if WETH drops below 2000 buy $50 of WETH')?.action).toEqual({ kind: 'act', intent: 'buy $50 of WETH' });
    expect(parseStanding('what do I hold')).toBeNull();
  });

  it('answers impossible prices and times as problems to say, not as crashes or records', () => {
    expect(problem('tell me when WETH is below 0')).toEqual({
      type: 'invalid_request',
      detail: 'a price to watch must be more than 0 USD',
    });
    expect(problem('tell me when WETH is below 0.000')?.detail).toBe('a price to watch must be more than 0 USD');
    expect(problem(`tell me when WETH is above ${'9'.repeat(90)}`)?.detail).toBe('a price to watch can be at most 1,000,000,000,000 USD');
    expect(problem('tell me when WETH is above 1000000000000')).toBeNull();
    expect(problem('tell me when WETH is below 1.0000000000000000001')?.detail).toBe('a price can have at most 18 decimal places');
    expect(problem('every day at 24:00 tell me my balance')?.detail).toMatch(/^24:00 is not a time of day/);
    expect(problem('every day at 12:60 tell me my balance')?.detail).toMatch(/^12:60 is not a time of day/);
    expect(problem('if WETH drops below 2000 do a dance')?.type).toBe('intent_unresolved');
    expect(problem(`if WETH drops below ${'9'.repeat(30)} buy $5 of WETH`)?.detail).toMatch(/at most 1,000,000,000,000 USD/);
  });

  it('takes commas only as thousands separators', () => {
    expect(parseStanding('tell me when WETH is below 1,2,3,4')).toBeNull();
    expect(parseStanding('tell me when WETH is below 12,345')?.trigger).toMatchObject({ threshold_usd: (12345n * 10n ** 18n).toString() });
  });
});

describe('STANDING_OPENING', () => {
  // Every sentence parseStanding reads opens so, and so do ones it cannot read (the planner
  // answers those with the forms it knows rather than as small talk).
  it.each([
    ['tell me when WETH is below 2500 USD', true],
    ['Notify me if DAI goes above 1.01', true],
    ['every day at 09:00 tell me my balance', true],
    ['every day at 25:00 sing', true],
    ['if WETH drops below 2000 buy $50 of WETH', true],
    ['once WETH climbs over 3000, sell 0.1 WETH', true],
    ['when it rains', false],
    ['what do I hold', false],
    ['remind me tomorrow', false],
  ])('%s → %s', (text, opens) => {
    expect(STANDING_OPENING.test(text)).toBe(opens);
    if (!opens) expect(parseStanding(text)).toBeNull();
  });
});
