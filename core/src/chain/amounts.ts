// Amount strings at the boundary ("12.5 USDC", "3000.12 USD") and bigint base units inside.
// All conversions are string/bigint arithmetic: a float never touches a money value.
// Rounding for people (`readableDecimal`) lives in @presence/protocol, where every surface reads it.
import { invalidRequest, PresenceError } from '../errors/presence-error';
import { resolveToken, type Token, type TokenList } from './token-list';

/** USD values are bigint with this many decimals (1 USD = 10n ** 18n). */
export const USD_DECIMALS = 18;
export const USD_ONE = 10n ** BigInt(USD_DECIMALS);

/** The chain's native coin, which has no token address. */
export const NATIVE = { symbol: 'ETH', decimals: 18, address: null } as const;

export type ParsedAmount =
  | { kind: 'usd'; usd: bigint }
  | { kind: 'native'; symbol: 'ETH'; decimals: 18; address: null; amount: bigint }
  | { kind: 'token'; token: Token; amount: bigint };

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** "12.5" with 6 decimals → 12500000n. Rejects more fraction digits than the unit has rather
 * than silently dropping value. */
export function parseUnits(text: string, decimals: number): bigint {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw invalidRequest(`not a non-negative decimal number: "${text}"`);
  const whole = m[1] ?? '0';
  const fraction = m[2] ?? '';
  if (fraction.length > decimals) {
    throw invalidRequest(`"${text}" has more than ${decimals} decimal places`);
  }
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/** 12500000n with 6 decimals → "12.5". Exact: every significant digit is kept unless
 * `fractionDigits` asks for rounding (half away from zero). */
export function formatUnits(value: bigint, decimals: number, fractionDigits?: number): string {
  let v = value;
  let d = decimals;
  if (fractionDigits !== undefined && fractionDigits < decimals) {
    v = roundToDigits(value, decimals, fractionDigits);
    d = fractionDigits;
  }
  const negative = v < 0n;
  const abs = negative ? -v : v;
  const base = 10n ** BigInt(d);
  const whole = (abs / base).toString();
  let fraction = d > 0 ? (abs % base).toString().padStart(d, '0') : '';
  fraction = fractionDigits === undefined ? fraction.replace(/0+$/, '') : fraction;
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

function roundToDigits(value: bigint, decimals: number, digits: number): bigint {
  const step = 10n ** BigInt(decimals - digits);
  const half = step / 2n;
  return value >= 0n ? (value + half) / step : -((-value + half) / step);
}

/** "12.5 USDC" for a token amount in base units. */
export function formatAmount(amount: bigint, unit: { symbol: string; decimals: number }): string {
  return `${formatUnits(amount, unit.decimals)} ${unit.symbol}`;
}

/** A USD value as "3000.12 USD" (cents, rounded half up). */
export function formatUsd(usd: bigint, fractionDigits = 2): string {
  return `${formatUnits(usd, USD_DECIMALS, fractionDigits)} USD`;
}

/** A USD unit price: cents when at least 1 USD, otherwise enough digits to show the first
 * six significant ones (a 0.000042 USD token must not render as "0.00 USD"). */
export function formatUsdPrice(usd: bigint): string {
  if (usd >= USD_ONE || usd === 0n) return formatUsd(usd, 2);
  const digits = Math.min(USD_DECIMALS, USD_DECIMALS - usd.toString().length + 6);
  const text = formatUnits(usd, USD_DECIMALS, digits).replace(/(\.\d*?[1-9])0+$/, '$1');
  return `${text} USD`;
}

/** A USD value as a JSON number rounded to cents. The number is produced by parsing the exact
 * decimal string, so the only float step is the final representation. */
export function usdToNumber(usd: bigint): number {
  return Number(formatUnits(usd, USD_DECIMALS, 2));
}

/** Parses "<decimal> <UNIT>" where UNIT is USD, ETH or a listed token symbol. */
export function parseAmount(text: string, list: TokenList): ParsedAmount {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z][A-Za-z0-9.]*)\s*$/.exec(text);
  if (!m?.[1] || !m[2]) {
    throw invalidRequest(`amount must look like "12.5 USDC", got "${text}"`);
  }
  const [, number, unit] = m;
  const upper = unit.toUpperCase();
  if (upper === 'USD') return { kind: 'usd', usd: parseUnits(number, USD_DECIMALS) };
  if (upper === 'ETH') return { ...NATIVE, kind: 'native', amount: parseUnits(number, 18) };
  let token: Token;
  try {
    token = resolveToken(list, unit);
  } catch (err) {
    if (err instanceof PresenceError && err.type === 'not_found') throw invalidRequest(`unknown unit "${unit}" in "${text}"`);
    throw err;
  }
  return { kind: 'token', token, amount: parseUnits(number, token.decimals) };
}

/** A 1e18-scaled ratio (e.g. a pool price) as a short decimal: up to 6 decimals when at
 * least 1, else six significant digits; trailing zeros trimmed. */
export function formatRatio(value: bigint): string {
  if (value === 0n) return '0';
  const digits = value >= USD_ONE ? 6 : Math.min(USD_DECIMALS, USD_DECIMALS - value.toString().length + 6);
  return formatUnits(value, USD_DECIMALS, digits).replace(/\.?0+$/, '');
}
