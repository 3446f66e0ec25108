// The sentences more than one place says, as tables: the same input always gives these words.

import type { IntentResult, Scope } from '@presence/protocol';
import { describe, expect, it } from 'vitest';
import type { TokenList } from '../chain/token-list';
import { ALLOW_ACT_NEEDED, actionOutcome, holdings, howToStop, landed, scopesMissing, unknownToken } from './replies';

const tx = `0x${'cd'.repeat(32)}`;

describe('actionOutcome', () => {
  it.each<[string, IntentResult, string]>([
    [
      'done',
      { status: 'done', intent_id: 'in_1', tx, block: 42, summary: 'swap 5 USDC for ≥0.0019 WETH', amount: '5 USDC' },
      `Done: swap 5 USDC for ≥0.0019 WETH. Transaction ${tx} landed in block 42.`,
    ],
    [
      'held',
      {
        status: 'needs_confirm',
        intent_id: 'in_2',
        confirm_id: 'cf_9',
        summary: 'buy $50 of WETH',
        amount: '50 USDC',
        expires_at: '2026-03-01T00:10:00.000Z',
      },
      "That is above your confirmation threshold, so I have held it: buy $50 of WETH. Approve or deny it before 2026-03-01 00:10 UTC; if you don't answer, nothing happens.",
    ],
  ])('%s', (_name, result, words) => {
    expect(actionOutcome(result)).toBe(words);
  });

  it('tells how to stop a standing intent in words to say, never a route', () => {
    expect(howToStop('tell me when WETH is below 2500 USD', 'st_1')).toBe('To stop, say "stop watching WETH".');
    expect(howToStop('every day at 09:00 tell me my balance', 'st_2')).toBe('To stop, say "stop the daily report".');
  });

  it('says where a transaction landed the same way everywhere', () => {
    expect(landed(tx, 7)).toBe(`Transaction ${tx} landed in block 7.`);
  });
});

describe('holdings', () => {
  const view = (balances: { amount: string; value_usd: string | null }[], total_usd = '0.00 USD') => ({
    balances: balances.map((b) => ({ symbol: b.amount.split(' ')[1] ?? '', address: null, ...b })),
    total_usd,
    as_of_block: 9,
  });
  it.each<[string, ReturnType<typeof view>, string]>([
    [
      'what is held, with its value',
      view(
        [
          { amount: '100 USDC', value_usd: '100.00 USD' },
          { amount: '0.5 WETH', value_usd: '1250.00 USD' },
        ],
        '1350.00 USD',
      ),
      '100 USDC (100.00 USD), 0.5 WETH (1,250.00 USD) — 1,350.00 USD in total at block 9',
    ],
    [
      'nothing at 0, no value where there is none',
      view(
        [
          { amount: '0 DAI', value_usd: '0.00 USD' },
          { amount: '5 SCAM', value_usd: null },
        ],
        '0.00 USD',
      ),
      '5 SCAM — 0.00 USD in total at block 9',
    ],
    [
      '0.01 is not 0',
      view([{ amount: '0.01 WETH', value_usd: '25.00 USD' }], '25.00 USD'),
      '0.01 WETH (25.00 USD) — 25.00 USD in total at block 9',
    ],
  ])('%s', (_name, v, words) => {
    expect(holdings(v)).toBe(words);
  });
});

describe('unknownToken', () => {
  const list = { tokens: [{ symbol: 'WETH' }, { symbol: 'USDC' }] } as TokenList;
  it.each([
    ['NOPE', 'I don\'t know the token "NOPE". Known: ETH, WETH, USDC.'],
    ['X'.repeat(100), `I don't know the token "${'X'.repeat(40)}". Known: ETH, WETH, USDC.`],
  ])('%s', (symbol, words) => {
    expect(unknownToken(symbol, list)).toBe(words);
  });
});

describe('scopesMissing', () => {
  it.each<[Scope[], string]>([
    [['memory:write'], 'That needs the memory:write scope, which this key does not have.'],
    [['memory:read', 'wallet:read'], 'That needs the memory:read and wallet:read scopes, which this key does not have.'],
    [
      ['memory:read', 'memory:write', 'wallet:act'],
      'That needs the memory:read, memory:write and wallet:act scopes, which this key does not have.',
    ],
  ])('%j', (missing, words) => {
    expect(scopesMissing(missing)).toBe(words);
  });
});

describe('ALLOW_ACT_NEEDED', () => {
  it('names how each surface allows acting, not only the API field', () => {
    expect(ALLOW_ACT_NEEDED).toContain('presence chat --act');
    expect(ALLOW_ACT_NEEDED).toContain('"Allow actions" in the extension');
  });
});
