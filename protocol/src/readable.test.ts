// Rounding for people: digits kept and dropped, and what in a text is not an amount at all.
import { describe, expect, it } from 'vitest';
import { readableAmounts, readableDecimal, readableSummary, readableUsd, readableUsdIn } from './readable';

describe('readableDecimal', () => {
  it.each([
    ['0.007311279878129051', '0.00731128'],
    ['1234.56789', '1234.57'],
    ['3000000.123', '3000000'],
    ['3000000', '3000000'],
    ['3000000.5', '3000001'],
    ['9999.998340000000001', '10000'],
    ['0.9999996', '1'],
    ['0.000000000000000001', '0.000000000000000001'],
    ['0.000', '0'],
    ['007.50', '7.5'],
    ['22', '22'],
    ['10.50', '10.5'],
    ['12.000000', '12'],
    ['0.1234564', '0.123456'],
  ])('%s reads as %s', (text, readable) => {
    expect(readableDecimal(text)).toBe(readable);
  });

  it('returns what is not a plain decimal as it came', () => {
    for (const text of ['', '-1.5', '1e18', '0x1f', '1,234.5', 'abc']) expect(readableDecimal(text)).toBe(text);
  });
});

describe('readableAmounts', () => {
  it('rounds every decimal in a summary', () => {
    expect(readableAmounts('swap 22 USDC for at least 0.007238 WETH (quoted 0.007311279878129051 WETH)')).toBe(
      'swap 22 USDC for at least 0.007238 WETH (quoted 0.00731128 WETH)',
    );
    expect(readableAmounts('send 1.123456789 WETH to 0xAbC0000000000000000000000000000000000001.')).toBe(
      'send 1.12346 WETH to 0xAbC0000000000000000000000000000000000001.',
    );
  });

  it('leaves whole numbers, hex, dotted runs and USD values alone', () => {
    for (const text of [
      'landed in block 123',
      'tx 0x5f3a000000000000000000000000000000000000000000000000000000000001',
      'quoted 3000000 USDC',
      'at 127.0.0.1 with v1.2.3',
      '1.5x the price',
      'worth 1234567.89 USD (22.00 USD)',
    ]) {
      expect(readableAmounts(text)).toBe(text);
    }
  });

  it('trims trailing zeros but keeps what is already short', () => {
    expect(readableAmounts('10.50 USDC and 2.5 WETH')).toBe('10.5 USDC and 2.5 WETH');
  });
});

describe('readableSummary', () => {
  it('writes a swap for people: amounts to six significant digits, the USD value beside what is spent', () => {
    const summary = 'swap 22 USDC for at least 0.007238 WETH (quoted 0.007311279878129051 WETH)';
    expect(readableSummary(summary, '22 USDC', '22.00 USD')).toBe(
      'swap 22 USDC (22.00 USD) for about 0.00731128 WETH (at least 0.007238 WETH)',
    );
    expect(readableSummary('wrap 0.123456789 ETH', '0.123456789 ETH', '370.37 USD')).toBe('wrap 0.123457 ETH (370.37 USD)');
    // The value as every USD figure a person is shown; the amount as it would be typed back.
    expect(readableSummary('send 2500 USDC to 0xabc', '2500 USDC', '2500.00 USD')).toBe('send 2500 USDC (2,500.00 USD) to 0xabc');
  });

  it('without a value (or one not in the summary) only rewords and rounds', () => {
    expect(readableSummary('swap 22 USDC for at least 0.007238 WETH (quoted 0.007311279878129051 WETH)')).toBe(
      'swap 22 USDC for about 0.00731128 WETH (at least 0.007238 WETH)',
    );
    expect(readableSummary('send 1.23456789 USDC to 0xabc', '9 DAI', '9.00 USD')).toBe('send 1.23457 USDC to 0xabc');
    expect(readableSummary('wrap 1 ETH', '1 ETH', null)).toBe('wrap 1 ETH');
  });
});

describe('readableUsd', () => {
  it.each([
    ['30000.5', 2, '30,000.50 USD'],
    [30000.5, 0, '30,001 USD'],
    [6000016.02, 0, '6,000,016 USD'],
    ['2500.00 USD', 2, '2,500.00 USD'],
    ['1234567.891', 2, '1,234,567.89 USD'],
    ['999.995', 2, '1,000.00 USD'],
    ['12', 2, '12.00 USD'],
    [0, 2, '0.00 USD'],
    ['0.000042 USD', 2, '0.000042 USD'],
  ] as const)('%s (%i decimals) reads as %s', (value, digits, readable) => {
    expect(readableUsd(value, digits)).toBe(readable);
  });

  it('returns what is not a plain figure as it came', () => {
    for (const text of ['', 'abc', '1,250.00 USD', '-1 USD', '0.5 ETH']) expect(readableUsd(text)).toBe(text);
  });

  it('writes every USD figure in a sentence, its decimals kept', () => {
    expect(readableUsdIn('100.00 USD is over the most one action may spend, 5000 USD (per_tx_cap); 0.5 ETH; block 12345')).toBe(
      '100.00 USD is over the most one action may spend, 5,000 USD (per_tx_cap); 0.5 ETH; block 12345',
    );
  });
});
