// Numbers as people type them, turned into digits: words ("twenty five", "two and a half",
// "three point five", "point one"), shorthand ("1k", "1.5k", "2m"), a bare fraction (".5"),
// thousands separators ("1,000", "1 000") and a decimal comma ("0,5", "1,5k"). Exact: integers in bigint, a fraction as the digits said, never a
// float. A run that reads as no number, or as one that would need rounding ("two thirds"),
// is left as words, so it is asked about rather than guessed.
//
// We measured compromise (a well-kept NLP library) for the word runs first: it reads them the
// same — number-words.test.ts holds the two to each other on every run — but took 1–15 ms a
// run on the shared CI machine (160 ms at worst), past the planner's 5 ms budget for a whole
// message; this table takes microseconds. compromise stays as the test's oracle.

const UNITS =
  'zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety';
const SCALES = 'hundred|thousand|million';
const CORE = `(?:${UNITS}|${SCALES})`;
// A run: number words joined by spaces, hyphens, "and", "a" or "point"; it must hold a core word.
const RUN = new RegExp(String.raw`\b(?:an? )?${CORE}(?:(?:[ -]|(?: and)? an? |(?: and)? | point )(?:${CORE}|half|quarter))*\b`, 'gi');
const NUMBERISH = new RegExp(String.raw`\b${CORE}\b`, 'i');

const SMALL: Record<string, number> = Object.fromEntries(UNITS.split('|').map((w, i) => [w, i < 20 ? i : (i - 18) * 10]));
const SCALE: Record<string, bigint> = { thousand: 1_000n, million: 1_000_000n };

/** "two and a half" → "2.5", "one hundred and fifty" → "150"; null when the run is no number we can say exactly. */
export function wordsToDigits(run: string): string | null {
  const words = run
    .toLowerCase()
    .split(/[\s-]+/)
    .filter((w) => w && w !== 'and');
  let total = 0n;
  let group = 0n;
  let seen = false;
  let point: string | null = null;
  let half = '';
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const next = words[i + 1];
    if (half) return null; // "half" or "a quarter" ends a number
    if (w === 'a' || w === 'an') {
      if (next === 'half' || next === 'quarter') continue;
      if (next === 'hundred' || (next && next in SCALE)) {
        group = 1n;
        seen = true;
        continue;
      }
      return null;
    }
    if (w === 'half' || w === 'quarter') {
      if (!seen || point !== null) return null;
      half = w === 'half' ? '5' : '25';
      continue;
    }
    if (w === 'point') {
      if (point !== null) return null;
      point = '';
      continue;
    }
    const small = SMALL[w];
    if (point !== null) {
      if (small === undefined || small > 9) return null;
      point += String(small);
      continue;
    }
    if (small !== undefined) {
      // "twenty five" adds; "five twenty" or "five five" is not a number
      if (group % 100n !== 0n && (group % 10n !== 0n || small >= 10)) return null;
      group += BigInt(small);
      seen = true;
    } else if (w === 'hundred') {
      group = (group || 1n) * 100n;
      seen = true;
    } else if (w in SCALE) {
      total += (group || 1n) * (SCALE[w] as bigint);
      group = 0n;
      seen = true;
    } else return null;
  }
  if (!seen || point === '') return null;
  const whole = (total + group).toString();
  const fraction = point ?? half;
  return fraction ? `${whole}.${fraction}` : whole;
}

const SUFFIX: Record<string, bigint> = { k: 1_000n, m: 1_000_000n };

/** "1.5k" → "1500": exact decimal arithmetic, no float. */
function expandSuffix(whole: string, fraction: string, suffix: string): string {
  const scale = SUFFIX[suffix.toLowerCase()] as bigint;
  const digits = BigInt(whole + fraction) * scale;
  const d = fraction.length;
  const s = digits.toString().padStart(d + 1, '0');
  const intPart = s.slice(0, s.length - d);
  const frac = s.slice(s.length - d).replace(/0+$/, '');
  return frac ? `${intPart}.${frac}` : intPart;
}

// Grouped digits. Commas with two or more groups ("1,000,000"), or a group and a decimal point
// ("1,500.25"), can only be thousands. One comma and three digits ("1,500") is thousands to
// most, but 1.5 where the comma is the decimal mark: read as the thousand, and reported, so
// that an action on it is asked back rather than spending the larger reading unasked. A comma
// that cannot be a thousands mark ("0,5", "2,75", "1,5") is a decimal comma. Digits grouped by
// a plain space ("1 000") read as one number and are reported too: "10 100" may be two.
const GROUPS = /\b\d{1,3}(?:,\d{3}){2,}(?:\.\d+)?\b|\b\d{1,3},\d{3}\.\d+\b/g;
const ONE_GROUP = /(?<![\d,.])([1-9]\d{0,2}),(\d{3})\b(?![,.]\d)/g;
const DECIMAL_COMMA = /(?<![\d,.])(\d+),(\d+)\b(?![,.]\d)/g;
// Before a "k" or an "m" too: "1,5k" is 1.5k (no thousands group has fewer than three digits);
// "1,500k" is 1500k or 1.5k, reported as "1,500" is.
const ONE_GROUP_SCALED = /(?<![\d,.])([1-9]\d{0,2}),(\d{3}[km])\b/g;
const DECIMAL_COMMA_SCALED = /(?<![\d,.])(\d+),(\d+[km])\b/g;
const SPACED = /(?<![\d,.] ?)\b([1-9]\d{0,2})((?: \d{3})+)\b(?! ?[,.]?\d)/g;
// "point five", "point 5": a number said from its decimal point
const DIGIT_WORD = 'zero|one|two|three|four|five|six|seven|eight|nine';
const FROM_POINT = new RegExp(String.raw`(?<!\b(?:${UNITS}|\d+) )\bpoint (?=(?:${DIGIT_WORD})\b)`, 'g');
const FROM_POINT_DIGITS = new RegExp(String.raw`(?<!\b(?:${UNITS}|\d+) )\bpoint (\d+)\b(?![.,]\d)`, 'g');

/**
 * The text with every number written in digits (lower-cased input expected). Numbers whose
 * grouping another locale reads differently are added to `unsure` as typed ("1,500", "1 000").
 */
export function numbersAsDigits(text: string, unsure: string[] = []): string {
  let t = text
    .replace(GROUPS, (m) => m.replaceAll(',', ''))
    .replace(ONE_GROUP, (m, w: string, g: string) => {
      unsure.push(m);
      return w + g;
    })
    .replace(DECIMAL_COMMA, '$1.$2')
    .replace(ONE_GROUP_SCALED, (m, w: string, g: string) => {
      unsure.push(m);
      return w + g;
    })
    .replace(DECIMAL_COMMA_SCALED, '$1.$2')
    .replace(SPACED, (m, w: string, g: string) => {
      unsure.push(m);
      return w + g.replaceAll(' ', '');
    })
    // 1k, 1.5k, 2m — but not "2m" glued to a word ("2min")
    .replace(/\b(\d+)(?:\.(\d+))?([km])\b/gi, (_m, w: string, f: string | undefined, s: string) => expandSuffix(w, f ?? '', s))
    // .5 → 0.5
    .replace(/(^|[\s$(])\.(\d+)\b/g, '$10.$2')
    .replace(FROM_POINT_DIGITS, '0.$1')
    .replace(FROM_POINT, 'zero point ')
    // "half a weth" is an amount; "half my weth" is a share, read elsewhere
    .replace(/\bhalf an? (?=[a-z])/g, '0.5 ');
  if (NUMBERISH.test(t)) {
    t = t.replace(RUN, (run) => wordsToDigits(run) ?? run);
  }
  return t;
}
