import { describe, expect, it } from 'vitest';
import { parseIntent } from './intent-parser';

describe('parseIntent', () => {
  it.each([
    ['swap 50 USDC for WETH', { kind: 'swap', amount: '50', tokenIn: 'USDC', tokenOut: 'WETH' }],
    ['Please swap 1,000.5 dai to usdc.', { kind: 'swap', amount: '1000.5', tokenIn: 'dai', tokenOut: 'usdc' }],
    ['buy $20 of WETH', { kind: 'buy', usd: '20', token: 'WETH', payWith: null }],
    ['buy $20 worth of WETH with DAI', { kind: 'buy', usd: '20', token: 'WETH', payWith: 'DAI' }],
    ['buy 20 USD of WETH', { kind: 'buy', usd: '20', token: 'WETH', payWith: null }],
    ['sell 0.1 WETH', { kind: 'sell', amount: '0.1', token: 'WETH', for: null }],
    ['sell 0.1 WETH for DAI', { kind: 'sell', amount: '0.1', token: 'WETH', for: 'DAI' }],
    ['wrap 0.1 ETH', { kind: 'wrap', amount: '0.1' }],
    ['unwrap 0.25 WETH', { kind: 'unwrap', amount: '0.25' }],
    [
      'send 5 USDC to 0x000000000000000000000000000000000000dEaD',
      { kind: 'send', amount: '5', token: 'USDC', to: '0x000000000000000000000000000000000000dEaD' },
    ],
  ])('%s', (text, parsed) => {
    expect(parseIntent(text)).toEqual(parsed);
  });

  it.each(['swap some USDC for WETH', 'send 5 USDC to bob', 'make me rich', 'swap 5 USDC', ''])(
    'refuses %j with the forms it knows',
    (text) => {
      expect(() => parseIntent(text)).toThrow(/I understand: swap 50 USDC for WETH/);
    },
  );

  // It once answered the list of forms, "send 5 USDC to 0x…" among them: the form was right, the address was not.
  it.each(['send 5 USDC to 0xdead', 'pay 3 USDC to 0x000000000000000000000000000000000000dEaDz'])(
    'says what is wrong with a short or malformed 0x address in %j',
    (text) => {
      expect(() => parseIntent(text)).toThrow(/^"0x\w*" is not a whole address: an address is 0x followed by 40 hex digits$/);
    },
  );
});
