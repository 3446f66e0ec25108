// Amount strings ↔ bigint base units, exact in both directions.
import { describe, expect, it } from 'vitest';
import {
  formatAmount,
  formatRatio,
  formatUnits,
  formatUsd,
  formatUsdPrice,
  parseAmount,
  parseUnits,
  USD_ONE,
  usdToNumber,
} from './amounts';
import { parseTokenList } from './token-list';

const invalid = expect.objectContaining({ type: 'invalid_request' });

const list = parseTokenList({
  chain: { id: 1, name: 'test' },
  dex: {
    kind: 'uniswap-v2',
    factory: '0x0000000000000000000000000000000000000001',
    router: '0x0000000000000000000000000000000000000002',
    weth: '0x0000000000000000000000000000000000000003',
  },
  tokens: [
    { symbol: 'WETH', address: '0x0000000000000000000000000000000000000003', decimals: 18 },
    { symbol: 'USDC', address: '0x0000000000000000000000000000000000000004', decimals: 6, stable: true },
  ],
});

describe('amounts', () => {
  it('parses and formats base units exactly', () => {
    expect(parseUnits('12.5', 6)).toBe(12_500_000n);
    expect(parseUnits('0.000001', 6)).toBe(1n);
    expect(parseUnits('7', 0)).toBe(7n);
    expect(formatUnits(12_500_000n, 6)).toBe('12.5');
    expect(formatUnits(1n, 18)).toBe('0.000000000000000001');
    expect(formatUnits(-1_500_000n, 6)).toBe('-1.5');
    expect(formatUnits(3n * 10n ** 24n, 18)).toBe('3000000');
    // 0.1 + 0.2 style traps do not exist here.
    expect(parseUnits('0.1', 18) + parseUnits('0.2', 18)).toBe(parseUnits('0.3', 18));
  });

  it('rejects what it cannot represent exactly', () => {
    expect(() => parseUnits('1.0000001', 6)).toThrow(invalid);
    expect(() => parseUnits('-1', 6)).toThrow(invalid);
    expect(() => parseUnits('1e3', 6)).toThrow(invalid);
    expect(() => parseUnits('', 6)).toThrow(invalid);
  });

  it('rounds USD half up to cents and renders units', () => {
    expect(formatUsd(3000n * USD_ONE + (USD_ONE * 125n) / 1000n)).toBe('3000.13 USD');
    expect(formatUsd((USD_ONE * 4n) / 1000n)).toBe('0.00 USD');
    expect(formatUsd(0n)).toBe('0.00 USD');
    expect(usdToNumber(6_000_000n * USD_ONE + (USD_ONE * 4999n) / 1000n)).toBe(6_000_005);
    expect(usdToNumber((USD_ONE * 1234567n) / 100n)).toBe(12345.67);
    expect(formatAmount(12_500_000n, { symbol: 'USDC', decimals: 6 })).toBe('12.5 USDC');
  });

  it('keeps small prices readable', () => {
    expect(formatUsdPrice(3000n * USD_ONE)).toBe('3000.00 USD');
    expect(formatUsdPrice((USD_ONE * 3n) / 1000n)).toBe('0.003 USD');
    expect(formatUsdPrice((USD_ONE * 42n) / 1_000_000n)).toBe('0.000042 USD');
    expect(formatRatio(3000n * USD_ONE)).toBe('3000');
    expect(formatRatio(USD_ONE / 3000n)).toBe('0.000333333');
  });

  it('parses amount strings with units from the token list', () => {
    expect(parseAmount('12.5 USDC', list)).toMatchObject({ kind: 'token', amount: 12_500_000n, token: { symbol: 'USDC' } });
    expect(parseAmount('0.1 eth', list)).toMatchObject({ kind: 'native', amount: 10n ** 17n, address: null });
    expect(parseAmount('50 USD', list)).toEqual({ kind: 'usd', usd: 50n * USD_ONE });
    expect(parseAmount('1WETH', list)).toMatchObject({ kind: 'token', amount: 10n ** 18n });
    expect(() => parseAmount('12.5 FOO', list)).toThrow(invalid);
    expect(() => parseAmount('USDC 12', list)).toThrow(invalid);
    expect(() => parseAmount('1.0000001 USDC', list)).toThrow(invalid);
  });
});
