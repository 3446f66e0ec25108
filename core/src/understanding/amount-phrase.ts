// The pieces of a request that name money: a token ("weth", "my dai"), and an amount of one —
// "20 usdc", "20 usd of weth", "half my dai", "25% of my usdc", "all my weth" — or one too
// vague to act on ("some usdc", "a bit of weth", "my dai"). Works on normalized text.
import type { Amount } from './reading';

/** Symbols understood without asking the chain (lower case). The planner passes its list's. */
export const COMMON_SYMBOLS = ['eth', 'weth', 'usdc', 'dai', 'usdt', 'wbtc'] as const;

/** Words that are grammar, never a token, wherever they stand. */
const NOT_TOKENS = new Set(
  "for to into in with using of my the some all half worth usd me it them a an and on at from by that this those these what which any much many more less token tokens coin coins money cash stuff thing things something anything everything it's its price balance wallet pool pools safe".split(
    ' ',
  ),
);

export type Phrase =
  | { amount: Amount; token: string }
  | { usdOf: string; token: string | null }
  | { vague: string | null; bare?: string }
  | { token: string }
  | { unknown: string }
  | null;

const NUM = String.raw`(\d+(?:\.\d+)?)`;
const OWNER = '(?:(?:of |in )?(?:my|the|your|our|me) |of )?';
/** The parts a whole is said to be cut into: "a third", "a tenth". */
const PARTS: Record<string, bigint> = {
  third: 3n,
  quarter: 4n,
  fourth: 4n,
  fifth: 5n,
  sixth: 6n,
  seventh: 7n,
  eighth: 8n,
  ninth: 9n,
  tenth: 10n,
};
const ORDINAL = Object.keys(PARTS).join('|');
const SHARES: [RegExp, (m: RegExpExecArray) => { num: bigint; den: bigint; said: string } | null][] = [
  [
    new RegExp(`^(\\d{1,3})/(\\d{1,3})(?: of)? ${OWNER}(.+)$`),
    (m) => {
      const num = BigInt(m[1] as string);
      const den = BigInt(m[2] as string);
      return num > 0n && den > 0n && num <= den ? { num, den, said: `${m[1]}/${m[2]}` } : null;
    },
  ],
  [
    new RegExp(`^(?:all|everything|the whole lot|the lot|the whole|whole)(?: of)? ${OWNER}(.+)$`),
    () => ({ num: 1n, den: 1n, said: 'all' }),
  ],
  [new RegExp(`^(?:half|1/2)(?: of)? ${OWNER}(.+)$`), () => ({ num: 1n, den: 2n, said: 'half' })],
  // "a quarter of my usdc", "a tenth of my eth", "two fifths of my dai" ("one"/"two" are digits by now)
  [
    new RegExp(`^(?:an? |one |1 )?(${ORDINAL})(?: of)? ${OWNER}(.+)$`),
    (m) => ({ num: 1n, den: PARTS[m[1] as string] as bigint, said: `a ${m[1]}` }),
  ],
  [
    new RegExp(`^(\\d) (${ORDINAL})s(?: of)? ${OWNER}(.+)$`),
    (m) => {
      const den = PARTS[m[2] as string] as bigint;
      const num = BigInt(m[1] as string);
      return num > 0n && num <= den ? { num, den, said: `${m[1]} ${m[2]}s` } : null;
    },
  ],
  [
    new RegExp(`^${NUM}%(?: of)? ${OWNER}(.+)$`),
    (m) => {
      const [w, f = ''] = (m[1] as string).split('.');
      const num = BigInt(`${w}${f}`);
      const den = 100n * 10n ** BigInt(f.length);
      return num > 0n && num <= den ? { num, den, said: `${m[1]}%` } : null;
    },
  ],
];

const BARE_SHARE_WORDS = new RegExp(`^(?:half|a half|\\d{1,3}\\/\\d{1,3}|(?:an? |one |1 )?(?:${ORDINAL})|\\d (?:${ORDINAL})s) `);
const BARE_SHARE = new RegExp(`${BARE_SHARE_WORDS.source}(?!(?:of|in|my|the|your|our|me|those|these)\\b)[a-z]`);

const VAGUE = new RegExp(
  `^(?:everything|all of it|it all|the lot|a ton of|tons of|heaps of|a load of|a handful of|a bunch|some|a bit|a bit of|a little|a little bit of|a little of|a few|a couple|a couple of|a lot of|a lot|lots of|loads of|a bunch of|bunch of|most|most of|part of|a portion of|a chunk of|a small amount of|a tiny bit of|a little more|more|enough|any|whatever|a (?:tiny |wee |teeny |little |small |good |fair |big |decent |reasonable |modest )?(?:smidge|smidgen|tad|touch|dash|pinch|sliver|fraction|sprinkle|bit|chunk|amount|portion|share|part|bunch|handful|load|lot|few|couple)(?: more| less)?(?: of)?)(?: ${OWNER}(.+))?$`,
);

export type Vocabulary = ReadonlySet<string>;

/** "my dai" → "dai"; "foo" → { unknown }; "for" → null. */
export function tokenOf(phrase: string, known: Vocabulary): { token: string } | { unknown: string } | null {
  const w = phrase
    .trim()
    .replace(/^(?:my|the|your|some|any|of) /, '')
    .replace(/ (?:tokens?|coins?)$/, '')
    .trim();
  if (known.has(w)) return { token: w };
  if (/^[a-z][a-z0-9.]{1,15}$/.test(w) && !NOT_TOKENS.has(w)) return { unknown: w };
  return null;
}

/** What an amount phrase says (null: not an amount phrase at all). */
export function phraseOf(phrase: string, known: Vocabulary): Phrase {
  // "the half of my usdc", "exactly 0.05 weth": the article and the exactness add nothing
  const p = phrase
    .trim()
    .replace(new RegExp(`^(?:my|the|those|these) (?=\\d|half|all|${ORDINAL})`), '')
    .replace(/^(?:exactly|precisely) (?=\d)/, '');
  let m = new RegExp(`^${NUM} usd(?: (?:worth|value))?(?:(?: of| in)? (.+))?$`).exec(p);
  if (m) {
    if (!m[2]) return { usdOf: m[1] as string, token: null };
    const t = tokenOf(m[2], known);
    return t && 'token' in t ? { usdOf: m[1] as string, token: t.token } : t;
  }
  // "half weth", "1/2 eth", "a quarter weth": half of what is held, or half of one? Both are
  // said; a guess could spend far more than meant, so it is asked ("half my weth" and "half a
  // weth" are each one thing). A percentage is always of a holding.
  if (BARE_SHARE.test(p)) {
    const t = tokenOf(p.replace(BARE_SHARE_WORDS, ''), known);
    return t && 'token' in t ? { vague: t.token, bare: (BARE_SHARE_WORDS.exec(p)?.[0] ?? '').trim() } : t;
  }
  for (const [re, share] of SHARES) {
    m = re.exec(p);
    if (!m) continue;
    const t = tokenOf(m.at(-1) as string, known);
    const s = share(m);
    if (!t) return null;
    if ('unknown' in t) return t;
    return s ? { amount: { share: s }, token: t.token } : { vague: t.token };
  }
  m = new RegExp(`^${NUM} (?:of )?(.+)$`).exec(p);
  if (m) {
    const t = tokenOf(m[2] as string, known);
    if (!t) return null;
    return 'token' in t ? { amount: { exact: m[1] as string }, token: t.token } : t;
  }
  m = VAGUE.exec(p);
  if (m) {
    const t = m[1] ? tokenOf(m[1], known) : null;
    if (t && 'unknown' in t) return t;
    return { vague: t ? t.token : null };
  }
  return tokenOf(p, known);
}
