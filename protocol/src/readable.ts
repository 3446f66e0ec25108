// Amounts as people read them. The wire keeps every digit (a quote's 18 decimals, a balance's
// last wei); every surface that shows an amount to a person (chat replies, bot cards, the CLI,
// the extension) rounds it here, so they all round the same way. USD figures in a reply are
// written here too ("30,000.50 USD"), so a pool's depth and a safety report's read alike. Plain string/bigint
// arithmetic: a float never touches a money value, and nothing beyond this file is needed.

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** How many significant digits a person is shown. */
const SIGNIFICANT = 6;

/** "12.50" → "12.5", "3.000" → "3": a fraction's trailing zeros (and a bare point) dropped. */
const joinTrimmed = (whole: string, fraction: string) => {
  const f = fraction.replace(/0+$/, '');
  return f ? `${whole}.${f}` : whole;
};

/**
 * A decimal as people read it: at most six significant digits, the whole part always kept
 * ("0.007311279878129051" → "0.00731128", "1234.56789" → "1234.57", "3000000" stays).
 * Rounded half up, in decimal arithmetic; trailing zeros trimmed. Anything that is not a
 * plain non-negative decimal is returned as it came.
 */
export function readableDecimal(decimal: string): string {
  const m = DECIMAL.exec(decimal);
  if (!m) return decimal;
  const whole = (m[1] ?? '0').replace(/^0+(?=\d)/, '');
  const fraction = m[2] ?? '';
  const leadingZeros = /^0*/.exec(fraction)?.[0].length ?? 0;
  const keep = whole === '0' ? leadingZeros + SIGNIFICANT : Math.max(0, SIGNIFICANT - whole.length);
  if (fraction.length <= keep) return joinTrimmed(whole, fraction);
  // Half up: only the first dropped digit decides.
  const up = fraction.charCodeAt(keep) >= 53 /* '5' */ ? 1n : 0n;
  const digits = (BigInt(whole + fraction.slice(0, keep)) + up).toString().padStart(keep + 1, '0');
  return joinTrimmed(digits.slice(0, digits.length - keep), digits.slice(digits.length - keep));
}

/**
 * Every decimal in a text rounded as `readableDecimal` does:
 * "swap 22 USDC for at least 0.007238 WETH (quoted 0.007311279878129051 WETH)" →
 * "… (quoted 0.00731128 WETH)". Whole numbers ("block 123", "3000000") and hex (addresses,
 * tx hashes: no point) are left alone, and so is a dotted run that is not one number
 * ("127.0.0.1", "v1.2.3"). A USD value ("22.00 USD") keeps its cents: it is already rounded.
 */
export function readableAmounts(text: string): string {
  return text.replace(/(?<![\d.])\d+\.\d+(?!\.?\d|\s*USD\b)/g, (n) => readableDecimal(n));
}

/**
 * An intent's summary as people read it: amounts rounded, a swap's expected amount before its
 * minimum, and, given the amount and its USD value, the value beside what leaves the wallet:
 * "swap 22 USDC for at least 0.007238 WETH (quoted 0.007311279878129051 WETH)" →
 * "swap 22 USDC (22.00 USD) for about 0.00731128 WETH (at least 0.007238 WETH)". One wording
 * for a chat's reply, a bot's card, the CLI and the extension.
 */
export function readableSummary(summary: string, amount?: string, valueUsd?: string | null): string {
  const swap = /^swap (.+) for at least (\S+) (\S+) \(quoted (\S+) \S+\)$/.exec(summary);
  const s = swap ? `swap ${swap[1]} for about ${swap[4]} ${swap[3]} (at least ${swap[2]} ${swap[3]})` : summary;
  if (!(amount && valueUsd && s.includes(amount))) return readableAmounts(s);
  const at = s.indexOf(amount) + amount.length;
  return `${readableAmounts(s.slice(0, at))} (${readableUsdIn(valueUsd)})${readableAmounts(s.slice(at))}`;
}

/** "30000" → "30,000": a whole number's thousands marked (en-US, as the replies are written). */
const grouped = (whole: string) => whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A plain decimal rounded half up to `digits` places, in decimal arithmetic: ["30000", "50"]. */
function roundTo(whole: string, fraction: string, digits: number): [string, string] {
  if (fraction.length <= digits) return [whole, fraction.padEnd(digits, '0')];
  const up = fraction.charCodeAt(digits) >= 53 /* '5' */ ? 1n : 0n;
  const n = (BigInt(whole + fraction.slice(0, digits)) + up).toString().padStart(digits + 1, '0');
  return [n.slice(0, n.length - digits), n.slice(n.length - digits)];
}

/**
 * A USD figure as a reply says it: thousands marked, and cents ("30000.5" → "30,000.50 USD",
 * "2500.00 USD" → "2,500.00 USD"), or whole dollars when `digits` is 0 (a pool's depth: "30,001
 * USD"). A price under a dollar keeps the digits it came with ("0.000042 USD": cents would make
 * it 0.00). Takes a plain decimal, a JSON number, or a figure as the wire writes it
 * ("<decimal> USD"); anything else is returned as it came.
 */
export function readableUsd(value: string | number, digits = 2): string {
  const text = typeof value === 'number' ? (Number.isFinite(value) && value >= 0 ? value.toFixed(6) : String(value)) : value;
  const m = /^(\d+)(?:\.(\d+))?(?: USD)?$/.exec(text.trim());
  if (!m) return text;
  const whole = (m[1] as string).replace(/^0+(?=\d)/, '');
  const fraction = m[2] ?? '';
  if (whole === '0' && /[1-9]/.test(fraction) && /^0*$/.test(fraction.slice(0, digits))) return `0.${fraction.replace(/0+$/, '')} USD`;
  const [w, f] = roundTo(whole, fraction, digits);
  return `${grouped(w)}${f ? `.${f}` : ''} USD`;
}

/** Every USD figure in a sentence written as `readableUsd` writes it, its own decimals kept: "100.00 USD is over … 5000 USD" → "… 5,000 USD". */
export function readableUsdIn(text: string): string {
  return text.replace(/(?<![\d.,])(\d+)(?:\.(\d+))?(?= USD\b)/g, (_m, w: string, f: string | undefined) =>
    readableUsd(`${w}${f ? `.${f}` : ''}`, f?.length ?? 0).replace(/ USD$/, ''),
  );
}
