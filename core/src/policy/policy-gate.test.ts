// Gate table tests: caps in USD and in tokens, deny by action/token/to, confirm_over, the
// daily cap, and withdraw's allowlist.
import { defaultPolicy, type PolicyDocument } from '@presence/protocol';
import { describe, expect, it } from 'vitest';
import { USD_ONE } from '../chain/amounts';
import { PresenceError } from '../errors/presence-error';
import { evaluatePolicy, type GateAction } from './policy-gate';

const usd = (n: number) => BigInt(Math.round(n * 100)) * (USD_ONE / 100n);
// 1 WETH = 3000 USD at "the quoted block".
const usdOf = (amount: string) => {
  const [n, unit] = amount.split(' ') as [string, string];
  const [whole, frac = ''] = n.split('.');
  const scaled = BigInt(whole as string) * USD_ONE + BigInt(frac.padEnd(18, '0').slice(0, 18));
  if (unit === 'USD' || unit === 'USDC' || unit === 'DAI') return scaled;
  if (unit === 'WETH' || unit === 'ETH') return scaled * 3000n;
  throw new Error(unit);
};
const swap = (value: number, tokens = ['USDC', 'WETH']): GateAction => ({ action: 'swap', tokens, to: null, valueUsd: usd(value) });
const policy = (p: Partial<PolicyDocument>): PolicyDocument => ({ ...defaultPolicy, deny: [], ...p });
const run = (p: Partial<PolicyDocument>, a: GateAction, spent = 0) => {
  try {
    return evaluatePolicy({ policy: policy(p), action: a, spentTodayUsd: usd(spent), usdOf }).decision;
  } catch (e) {
    if (e instanceof PresenceError) return `${e.type}:${e.extra.rule}`;
    throw e;
  }
};

describe('policy gate', () => {
  it.each([
    // [policy, action value, spent today, outcome]
    [{}, 5, 0, 'execute'],
    [{}, 10, 0, 'execute'], // at confirm_over: not above it
    [{}, 10.01, 0, 'hold'],
    [{}, 50, 0, 'hold'],
    [{}, 50.01, 0, 'policy_block:per_tx_cap'],
    [{ per_tx_cap: '0.01 WETH' }, 30, 0, 'hold'], // 0.01 WETH = 30 USD
    [{ per_tx_cap: '0.01 WETH' }, 30.01, 0, 'policy_block:per_tx_cap'],
    [{ confirm_over: '0 USD' }, 0.01, 0, 'hold'],
    [{ passkey_over: '5 USD' }, 5, 0, 'execute'], // at passkey_over: not above it
    [{ passkey_over: '5 USD' }, 5.01, 0, 'hold'], // held under confirm_over: a passkey approves it
    [{ passkey_over: '0.01 WETH' }, 30.01, 0, 'hold'],
    [{ daily_cap: '100 USD' }, 9, 91, 'execute'],
    [{ daily_cap: '100 USD' }, 9, 91.01, 'policy_block:daily_cap'],
    [{ daily_cap: '0.05 ETH' }, 10, 140, 'execute'],
    [{ daily_cap: '0.05 ETH' }, 10, 140.01, 'policy_block:daily_cap'],
  ] as const)('%j value %d spent %d → %s', (p, value, spent, outcome) => {
    expect(run(p, swap(value), spent)).toBe(outcome);
  });

  it('deny rules match on action, token (case-insensitive) and to', () => {
    const to = '0x000000000000000000000000000000000000dEaD';
    expect(run({ deny: [{ action: 'send' }] }, { action: 'send', tokens: ['USDC'], to, valueUsd: usd(1) })).toBe('policy_block:deny[0]');
    expect(run({ deny: [{ action: 'send' }] }, swap(1))).toBe('execute');
    expect(run({ deny: [{ action: 'swap' }, { token: 'scam' }] }, swap(1, ['WETH', 'SCAM']))).toBe('policy_block:deny[0]');
    expect(run({ deny: [{ token: 'SCAM' }] }, swap(1, ['WETH', 'SCAM']))).toBe('policy_block:deny[0]');
    expect(run({ deny: [{ to: to.toLowerCase() }] }, { action: 'send', tokens: ['DAI'], to, valueUsd: usd(1) })).toBe(
      'policy_block:deny[0]',
    );
    expect(run({ deny: [{ action: 'send', token: 'DAI' }] }, { action: 'send', tokens: ['USDC'], to, valueUsd: usd(1) })).toBe('execute');
    expect(run({ deny: [{ action: '*' }] }, swap(1))).toBe('policy_block:deny[0]');
  });

  it('the detail names the rule and the numbers', () => {
    expect(() => evaluatePolicy({ policy: policy({}), action: swap(60), spentTodayUsd: 0n, usdOf })).toThrow(
      '60.00 USD is over the most one action may spend, 50 USD (per_tx_cap)',
    );
  });

  it('a deny says what it stops as a person would, what the policy still allows, and where to change it', () => {
    const to = '0x000000000000000000000000000000000000dEaD';
    const send = { action: 'send' as const, tokens: ['USDC'], to, valueUsd: usd(1) };
    const detail = (p: Partial<PolicyDocument>, a: GateAction) => {
      try {
        evaluatePolicy({ policy: policy(p), action: a, spentTodayUsd: 0n, usdOf });
      } catch (e) {
        if (e instanceof PresenceError) return e.detail;
      }
      throw new Error('not blocked');
    };
    // The default policy: sends denied, SCAM denied.
    expect(detail({ deny: defaultPolicy.deny }, send)).toBe('sends are not allowed (your policy allows swaps, wraps and unwraps)');
    expect(detail({ deny: defaultPolicy.deny }, swap(1, ['WETH', 'SCAM']))).toBe('actions involving SCAM are not allowed');
    expect(detail({ deny: [{ action: 'swap', token: 'DAI' }] }, swap(1, ['USDC', 'DAI']))).toBe('swaps involving DAI are not allowed');
    expect(detail({ deny: [{ to }] }, send)).toBe(`actions to ${to} are not allowed`);
    expect(detail({ deny: [{ action: '*' }] }, swap(1))).toBe('no actions are allowed');
    // An allowlisted address makes withdrawals one of what is allowed; a rule stopping every action leaves nothing to list.
    expect(detail({ deny: [{ action: 'swap' }, { action: 'wrap' }], withdraw_allowlist: [to] }, swap(1))).toBe(
      'swaps are not allowed (your policy allows sends, unwraps and withdrawals)',
    );
  });

  it('withdraw goes only to the allowlist and is not capped', () => {
    const to = '0x1111111111111111111111111111111111111111';
    const w = { action: 'withdraw' as const, tokens: ['USDC'], to, valueUsd: usd(5000) };
    expect(run({}, w)).toBe('policy_block:withdraw_allowlist');
    expect(run({ withdraw_allowlist: [to] }, w)).toBe('execute');
    expect(run({ withdraw_allowlist: [to], deny: [{ action: 'withdraw' }] }, w)).toBe('policy_block:deny[0]');
  });
});
