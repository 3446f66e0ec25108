// Reads a typed message into what the person wants (reading.ts), the way the `local` planner
// understands people: standing intents first (an "if … buy …" is not a buy now), then what
// must not be taken as a request to act (a question about acting, a negation, something
// already done), then questions, then actions. Deterministic and pure: the same words and
// the same known tokens always read the same.
import { COMMON_SYMBOLS, type Vocabulary } from './amount-phrase';
import { normalize } from './normalize';
import { notDone } from './not-done';
import { numbersAsDigits } from './number-words';
import { readAction } from './read-action';
import { readPolicyChange, readQuestion } from './read-question';
import { readStanding } from './read-standing';
import { readTopic } from './read-topic';
import { describe, intentWords, isAction, type Reading } from './reading';
import { CAUTION } from './request-tail';

export type ReadOptions = {
  /** Token symbols the chain lists (any case); ETH is always known. Default: COMMON_SYMBOLS. */
  known?: readonly string[];
  /** The presence's name, so "hey Ada, …" reads as a greeting in front of the request. */
  presenceName?: string;
};

const vocabularies = new Map<string, Vocabulary>();
function vocabulary(known: readonly string[] | undefined): Vocabulary {
  const list = known ?? COMMON_SYMBOLS;
  const id = list.join(',');
  let v = vocabularies.get(id);
  if (!v) {
    v = new Set(['eth', ...list.map((s) => s.toLowerCase())]);
    if (vocabularies.size > 32) vocabularies.clear();
    vocabularies.set(id, v);
  }
  return v;
}

const ACTING =
  /\b(?:swap|exchange|trade|convert|buy|sell|send|transfer|pay|wrap|unwrap|spend|get|purchase|turn|change|switch|flip|ape|dump)(?:s|ed|ped|ing|ping)?\b|\b(?:bought|sold|sent|paid|spent|got)\b/;

/** Asking whether, how or what if — about acting, not a request to act. */
const ABOUT_ACTING =
  /^(?:do you (?:reckon|think|suppose|believe|feel)(?: that)? (?:i|we) (?:should|ought to|could|must|need to)|(?:ought|should) (?:i|we)(?: to)?|i wonder (?:if|whether) (?:i|we) should|how (?:does|would) (?:one|1)(?: go about)?|(?:is|would) (?:it|now|this|today) (?:a )?(?:good|bad|right|smart|wise|the right|the best|better) (?:time|moment|day|idea|move|call) to|is it time to|is now the time to|should i|shall i|how i (?:can|could|should|do)|how to|how do you|would it be (?:wise|smart|good|a good idea) to|is it (?:a good idea|wise|smart|worth it) to|what if i|what happens if i|what would happen if i|how (?:do|can|would|should) i|can i|could i|may i|am i able to|is it possible to|do you think i should|do you recommend|would you recommend)(?: we)? (.+)$/;
/** Of those, asking whether or how it can be done ("can i …", "how do i …"), not whether it should. */
const ABOUT_ABILITY =
  /^(?:can i|could i|may i|am i able to|is it possible to|how (?:do|can|would|should) i|how to|how do you|how i (?:can|could|should|do)|how (?:does|would) (?:one|1))\b/;
const NEGATED = /^(?:don'?t|do not|dont|never|no need to|no don'?t|no,? don'?t|nope|not) /;
const DONE_ALREADY =
  /^(?:(?:yesterday|earlier|earlier today|today|this morning|last (?:week|night|month|year)|the other day|just now)[, ]+)?(?:(?:i|we) )?(?:just |already |have |had |'ve )*(?:swapped|bought|sold|sent|traded|converted|paid|wrapped|unwrapped|transferred|exchanged|spent)\b/;

/** What was not done, said of the past: "I didn't swap 10 usdc", "we never sold it". */
const NOT_DONE = /^(?:i|we) (?:did not|didn'?t|have not|haven'?t|never) /;

/** Saying it was a joke: "jk", "just kidding", "only joking". */
const JOKE = '(?:jk|j/k|jking|(?:just |only )?(?:kidding|joking))';

/** Taking a request back: "actually no, don't", "never mind", "wait", "jk". Beside a request, it wins. */
const RETRACTED = new RegExp(
  `^(?:(?:actually|wait|oh|hmm+|um+|ok|okay|sorry)[ ,]+)*(?:no|nope|nah|don'?t|do not|never ?mind|nvm|cancel that|scratch that|forget (?:it|that)|hold on|hold off|not yet|on second thought|wait|${JOKE})(?:[ ,]+(?:no|nope|don'?t|do not|do it|do that|then|wait|actually|thanks|it|that|yet|(?:on|with) (?:the|that|this|my) (?:swap|trade|sale|purchase|send|transfer|order)))*$`,
);

/** A request put off or made a what-if in front: "maybe later send …", "lol imagine if i swapped …", "hypothetically, swap …". */
const PUT_OFF =
  /^((?:(?:lol|haha|lmao) )?(?:(?:maybe|perhaps|probably|possibly)(?: (?:later|tomorrow|tonight|next week|some ?time|someday|eventually|soon|another time|one day))?|later|tomorrow|tonight|next week|some ?time|someday|eventually|one day|(?:just )?(?:imagine|suppose|pretend|picture)(?: if| that)?|hypothetically(?: speaking)?|theoretically|in theory)),? (.+)$/;

/** A request said to be a joke in front: "jk swap …", "just kidding, send …". */
const JOKED = new RegExp(`^(${JOKE}),? (.+)$`);

function putOff(t: string, known: Vocabulary, addresses: string[]): Reading | null {
  const off = PUT_OFF.exec(t);
  const m = off ?? JOKED.exec(t);
  const rest = m?.[2] ?? '';
  if (!(m && ACTING.test(rest))) return null;
  const r = readAction(rest.replace(/^(?:i|we) (?:will |would |could )?/, ''), { known, addresses });
  return notDone(r, m[1] as string, off ? 'puts it off or makes it a what-if' : 'makes it a joke');
}

/**
 * A request to spend beside laughter ("swap 1 eth for usdc lol") may be a joke: not done, said
 * why, with the words that do it. Laughter around anything else is filler ("what do I hold lol").
 */
function laughedOff(r: Reading | null, laughed: string | null): Reading | null {
  if (!(laughed && r)) return r;
  if (isAction(r)) return notDone(r, laughed, 'makes it sound like a joke');
  if (r.kind === 'watch' && r.text.startsWith('if '))
    return { kind: 'not_now', reply: `I haven't set that up: "${laughed}" makes it sound like a joke. To set it up, say "${r.text}".` };
  return r;
}

function notNow(t: string, known: Vocabulary, addresses: string[]): Reading | null {
  if (RETRACTED.test(t)) return { kind: 'not_now', reply: "OK — I won't do anything." };
  const later = putOff(t, known, addresses);
  if (later) return later;
  let m = ABOUT_ACTING.exec(t);
  if (m && ACTING.test(m[1] as string)) {
    const r = readAction(m[1] as string, { known, addresses });
    const form =
      r && isAction(r) && !(('amount' in r && typeof r.amount === 'object' && 'share' in r.amount) || r.kind === 'buy_exact')
        ? intentWords(r)
        : null;
    if (ABOUT_ABILITY.test(t))
      return {
        kind: 'not_now',
        reply: form
          ? `You can: say "${form}" and I'll do it, within your spending policy.`
          : `You can: say what to do with an amount, like "swap 20 USDC for WETH", and I'll do it, within your spending policy.`,
      };
    return {
      kind: 'not_now',
      reply: form
        ? `I don't give trading advice, and I only act when asked outright. If you want it done, say "${form}".`
        : `I don't give trading advice, and I only act when asked outright: say what to do with an amount, like "swap 20 USDC for WETH".`,
    };
  }
  m = NEGATED.exec(t);
  if (m && ACTING.test(t)) return { kind: 'not_now', reply: "OK — I won't do anything." };
  if (DONE_ALREADY.test(t) || (NOT_DONE.test(t) && ACTING.test(t)))
    return { kind: 'not_now', reply: 'Noted. Ask "what do I hold" to see your wallet as it is now.' };
  return null;
}

/**
 * An action (now, or on a price) on a number another locale reads differently is asked back:
 * "1,500" is 1.5 where the comma is the decimal mark (and "1,500k" 1500), and "10 100" may be two numbers. A
 * question or an alert on it reads the thousand: nothing is spent on a wrong guess.
 */
function unsureAmount(r: Reading | null, unsure: string[]): Reading | null {
  const spends = isAction(r) || (r?.kind === 'watch' && r.text.startsWith('if '));
  const typed = unsure[0];
  if (!(spends && typed)) return r;
  // "1,500k" read with a thousands comma (1500000), or with a decimal comma: "1,500" is 1.5, "1,500k" 1500
  const whole = numbersAsDigits(typed.replace(/[ ,]/g, ''));
  const decimal = typed.includes(',')
    ? numbersAsDigits(typed.replace(',', '.'))
        .replace(/(\.\d*?)0+$/, '$1')
        .replace(/\.$/, '')
    : null;
  return {
    kind: 'ask',
    question: `Just to be sure of the amount: by "${typed}" do you mean ${whole}${decimal ? ` or ${decimal}` : ''}? Say it again with the number written plainly, like "${whole}"${decimal ? ` or "${decimal}"` : ''}.`,
  };
}

/** A bound or an estimate in front of an amount: "up to $20", "about 20 usdc", "at least 0.1 weth". */
const INEXACT =
  /\b(up to|no more than|not more than|at most|max(?:imum)?(?: of)?|at least|no less than|not less than|min(?:imum)?(?: of)?|about|around|roughly|approximately|approx|circa|something like|like) (?=\$?\d)/;

const kindOf = (bound: string) => (/up|more|most|max/.test(bound) ? 'a limit' : /least|less|min/.test(bound) ? 'a floor' : 'an estimate');

/**
 * An action whose amount is a bound or an estimate is asked back with the exact words, never
 * done with the number as if it were exact: "up to $20" may mean $12.
 */
function inexactAmount(text: string, c: Parameters<typeof readAction>[1]): Reading | null {
  const m = INEXACT.exec(text);
  if (!m) return null;
  const bound = m[1] as string;
  const r = readAction(text.replace(m[0], ''), c);
  if (!(r && isAction(r))) return null;
  return {
    kind: 'ask',
    question: `I only act on an exact amount, and "${bound}" makes it ${kindOf(bound)}. How much exactly? If the number is right, say "${intentWords(r)}".`,
  };
}

function readClause(typed: string, opts: ReadOptions): Reading | null {
  const n = normalize(typed, opts.presenceName);
  const known = vocabulary(opts.known);
  const c = { known, addresses: n.addresses, ids: n.ids };
  if (!n.text) return null;
  const r =
    readPolicyChange(n.text) ??
    readStanding(n.text, c) ??
    notNow(n.text, known, n.addresses) ??
    readQuestion(n.text, known) ??
    readAction(n.text, c) ??
    inexactAmount(n.text, c) ??
    readTopic(n.text, known, n.asked);
  return laughedOff(unsureAmount(r, n.unsure), n.laughed);
}

// A message often says more than its request: "Good morning! The kettle is on. Use 15 dai to
// buy weth please." Its sentences (then its comma-separated clauses) are read one by one, and
// the message is what the one part that reads says. Two parts that read differently are two
// requests: asked back, never half done.
const SENTENCE_END = /(?<=[.!?;…])\s+|:\s+|\n+/;
const CLAUSE_END = /,\s+/;
const ONE_AT_A_TIME: Reading = {
  kind: 'ask',
  question: 'That asks for more than one thing. Tell me one at a time, like "swap 10 USDC for WETH", then the next.',
};

/**
 * A part that only wishes vaguely ("I would like more WETH", "I'd like more dollars set
 * aside") beside a part that asks outright is context: it names no amount and no token the
 * request does not, so it adds nothing to decide.
 */
function isContext(part: Part, action: Part, opts: ReadOptions): boolean {
  if (part.reading.kind !== 'ask' || 'unknown' in part.reading) return false;
  const known = vocabulary(opts.known);
  const words = (p: Part) => normalize(p.text, opts.presenceName).text.split(' ');
  const named = words(action);
  return words(part).every((w) => !/\d/.test(w) && (!known.has(w) || named.includes(w)));
}

type Part = { text: string; reading: Reading };

/** The one token a sentence names, for "it" in the next: "… a token called SCAM. Is it safe?" */
function namedToken(text: string, opts: ReadOptions): string | null {
  const known = vocabulary(opts.known);
  const named = new Set(
    normalize(text, opts.presenceName)
      .text.split(' ')
      .filter((w) => known.has(w)),
  );
  return named.size === 1 ? ([...named][0] as string) : null;
}

/** "Is it safe?" after a sentence naming one token asks about that token; only questions are read so, never an action. */
function readReferring(text: string, before: string | undefined, opts: ReadOptions): Reading | null {
  const token = before && /\bit\b/i.test(text) ? namedToken(before, opts) : null;
  const r = token ? readClause(text.replace(/\bit\b/i, token), opts) : null;
  return r && !isAction(r) && r.kind !== 'watch' && r.kind !== 'ask' ? r : null;
}

function readParts(texts: string[], opts: ReadOptions, split?: RegExp): Reading | null {
  let parts: Part[] = [];
  for (const [i, text] of texts.entries()) {
    const reading =
      readClause(text, opts) ?? (split ? readParts(text.split(split), opts) : null) ?? readReferring(text, texts[i - 1], opts);
    if (reading && !parts.some((seen) => describe(seen.reading) === describe(reading))) parts.push({ text, reading });
  }
  const acting = parts.filter((p) => isAction(p.reading) || p.reading.kind === 'watch');
  const action = acting[0];
  // "should weth climb above 4500, do sell 0.2 weth": a condition (or a negation, a later time)
  // in a part that did not read is never dropped to leave an action standing alone
  if (action && texts.some((t) => !parts.some((p) => p.text === t) && CAUTION.test(normalize(t, opts.presenceName).text))) return null;
  if (acting.length === 1 && action) parts = parts.filter((p) => p === action || !isContext(p, action, opts));
  if (parts.length > 1) return parts.find((p) => p.reading.kind === 'not_now')?.reading ?? ONE_AT_A_TIME;
  // "swap 1 eth for usdc. lol", "… 😂": a part that is only laughter laughs at the request beside it
  const laughter = texts.map((t) => normalize(t, opts.presenceName)).find((n) => n.laughed && (n.text === n.laughed || n.text === ''));
  return laughedOff(parts[0]?.reading ?? null, laughter?.laughed ?? null);
}

export function readMessage(typed: string, opts: ReadOptions = {}): Reading | null {
  const sentences = typed.split(SENTENCE_END).filter((s) => s.trim());
  if (sentences.length > 1) return readParts(sentences, opts, CLAUSE_END);
  return readClause(typed, opts) ?? readParts(typed.split(CLAUSE_END), opts);
}

export { normalize };
