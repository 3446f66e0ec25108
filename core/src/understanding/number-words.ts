// Numbers as people type them, turned into digits: words ("twenty five", "two and a half",
// "three point five"), shorthand ("1k", "1.5k", "2m"), a bare fraction (".5") and thousands
// separators ("1,000"). Word runs are read by compromise's number parser (a well-kept
// library, not a table of ours); it is only asked when a run of number words is present, so a
// message written in digits costs a regex. A run compromise reads as a value that needs
// rounding ("two thirds" → 0.667) is left as words, so it is asked about rather than guessed.
import nlp from 'compromise';

const UNITS =
  'zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety';
const SCALES = 'hundred|thousand|million';
const CORE = `(?:${UNITS}|${SCALES})`;
// A run: number words joined by spaces, hyphens, "and", "a" or "point"; it must hold a core word.
const RUN = new RegExp(String.raw`\b(?:an? )?${CORE}(?:(?:[ -]|(?: and)? an? |(?: and)? | point )(?:${CORE}|half|quarter))*\b`, 'gi');
const NUMBERISH = new RegExp(String.raw`\b${CORE}\b`, 'i');

/** "two and a half" → "2.5"; null when compromise reads no number or one it had to round. */
function wordsToDigits(run: string): string | null {
  const found = nlp(run).numbers().get() as unknown[];
  const n = found.length === 1 ? found[0] : null;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return null;
  const text = String(n);
  // compromise rounds thirds and the like to three places: that is a guess, not a number typed.
  if (/\.\d{3,}$/.test(text) && !/point/i.test(run)) return null;
  return /e/i.test(text) ? null : text;
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

/** The text with every number written in digits (lower-cased input expected). */
export function numbersAsDigits(text: string): string {
  let t = text
    // 1,000 and 12,500.5 (groups of three only: "1,2" is not a thousand)
    .replace(/\b(\d{1,3}(?:,\d{3})+)(\.\d+)?\b/g, (_m, w: string, f = '') => w.replaceAll(',', '') + f)
    // 1k, 1.5k, 2m — but not "2m" glued to a word ("2min")
    .replace(/\b(\d+)(?:\.(\d+))?([km])\b/gi, (_m, w: string, f: string | undefined, s: string) => expandSuffix(w, f ?? '', s))
    // .5 → 0.5
    .replace(/(^|[\s$(])\.(\d+)\b/g, '$10.$2')
    // "half a weth" is an amount; "half my weth" is a share, read elsewhere
    .replace(/\bhalf an? (?=[a-z])/g, '0.5 ');
  if (NUMBERISH.test(t)) {
    t = t.replace(RUN, (run) => wordsToDigits(run) ?? run);
  }
  return t;
}
