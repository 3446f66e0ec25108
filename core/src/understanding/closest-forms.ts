// What to offer when a message is not understood: the forms closest to what was typed, not a
// fixed list. A message that reads once its misspelt words are put right ("swpa 10 usdc for
// weth") is offered back corrected, as a suggestion — never acted on, since a guessed word is
// a guess. Otherwise the example forms sharing the most words with the message are offered.
import { distance } from 'fastest-levenshtein';
import { COMMON_SYMBOLS } from './amount-phrase';
import { normalize } from './normalize';
import { readMessage } from './read-message';
import { intentWords, isAction } from './reading';

/** Example forms, one per thing understood, with the words that point at each. */
const FORMS: [form: string, words: string][] = [
  ['swap 20 USDC for WETH', 'swap exchange trade convert change turn for to into'],
  ['buy $20 of WETH', 'buy get purchase dollars usd worth of'],
  ['buy 0.01 WETH with USDC', 'buy get purchase want with using'],
  ['sell 0.1 WETH for USDC', 'sell dump cash out for'],
  ['swap half my USDC for WETH', 'half all my everything percent quarter'],
  ['wrap 0.1 ETH', 'wrap eth'],
  ['unwrap 0.1 WETH', 'unwrap weth'],
  ['send 5 USDC to 0x…', 'send transfer pay give address to'],
  ['what do I hold', 'hold have own wallet balance portfolio holdings much money'],
  ['how much USDC do I have', 'how much many have balance left'],
  ['what is WETH worth', 'price worth cost value trading how much dollars usd'],
  ['is SCAM safe', 'safe scam legit rug trust risky honeypot check safety'],
  ['how deep is WETH-USDC', 'deep depth liquid liquidity pool reserves'],
  ['what pools are there', 'pools markets pairs trade list'],
  ['tell me when WETH is below 2500 USD', 'tell notify alert ping warn let know when below above under over watch price'],
  ['every day at 09:00 tell me my balance', 'every day daily morning report balance at time'],
  ['if WETH drops below 2000 buy $50 of WETH', 'if drops falls rises then buy when'],
  ['what are you watching', 'watching alerts standing reminders keeping eye list'],
  ['stop watching WETH', 'stop cancel remove delete watching alert'],
  ['remember that I prefer DAI', 'remember note prefer keep'],
  ['what do you remember', 'remember memory know about me'],
];

const VOCABULARY = [
  ...new Set([
    ...FORMS.flatMap(([, w]) => w.split(' ')),
    ...COMMON_SYMBOLS,
    'scam',
    'sell',
    'wrap',
    'unwrap',
    'send',
    'swap',
    'buy',
    'price',
    'balance',
    'the',
    'what',
    'how',
    'much',
    'with',
  ]),
].filter((w) => w.length >= 3);

/** The nearest known word to a misspelt one (two letters off for long words, one for short), or the word. */
function corrected(word: string): string {
  if (word.length < 3 || /[\d']/.test(word) || VOCABULARY.includes(word)) return word;
  const limit = word.length >= 6 ? 2 : 1;
  let best = word;
  let bestD = limit + 1;
  const letters = [...word].sort().join('');
  for (const v of VOCABULARY) {
    // two letters swapped ("swpa") count as one slip, not two
    const d = v.length === word.length && [...v].sort().join('') === letters ? 1 : distance(word, v);
    if (d < bestD) [best, bestD] = [v, d];
  }
  return best;
}

export function closestForms(typed: string, known?: readonly string[]): { didYouMean: string | null; forms: string[] } {
  const text = normalize(typed).text;
  const words = text.split(' ').filter(Boolean);
  const fixed = words.map(corrected).join(' ');
  if (fixed !== text) {
    const r = readMessage(fixed, { known });
    if (r && isAction(r) && !(r.kind === 'buy_exact' || ('amount' in r && typeof r.amount === 'object' && 'share' in r.amount)))
      return { didYouMean: intentWords(r), forms: [] };
    if (r && r.kind !== 'ask' && r.kind !== 'not_now') return { didYouMean: fixed, forms: [] };
  }
  const said = new Set(fixed.split(' '));
  const scored = FORMS.map(([form, hints], i) => {
    const pool = new Set([...hints.split(' '), ...form.toLowerCase().split(/[\s-]/)]);
    let score = 0;
    for (const w of said) if (pool.has(w)) score += w.length >= 4 ? 2 : 1;
    return { form, score, i };
  });
  const best = scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, 3)
    .map((s) => s.form);
  return {
    didYouMean: null,
    forms: best.length ? best : ['what do I hold', 'swap 20 USDC for WETH', 'tell me when WETH is below 2500 USD'],
  };
}

/** "I'm not sure what you mean. Did you mean …?" / "… The closest I understand: …". */
export function notUnderstood(typed: string, known?: readonly string[]): string {
  const c = closestForms(typed, known);
  if (c.didYouMean) return `I'm not sure what you mean. Did you mean "${c.didYouMean}"?`;
  const quoted = c.forms.map((f) => `"${f}"`);
  const list = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted[0];
  return `I'm not sure what you mean. The closest things I understand: ${list}.`;
}
