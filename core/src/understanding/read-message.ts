// Reads a typed message into what the person wants (reading.ts), the way the `local` planner
// understands people: standing intents first (an "if … buy …" is not a buy now), then what
// must not be taken as a request to act (a question about acting, a negation, something
// already done), then questions, then actions. Deterministic and pure: the same words and
// the same known tokens always read the same.
import { COMMON_SYMBOLS, type Vocabulary } from './amount-phrase';
import { normalize } from './normalize';
import { readAction } from './read-action';
import { readQuestion } from './read-question';
import { readStanding } from './read-standing';
import { readTopic } from './read-topic';
import { intentWords, isAction, type Reading } from './reading';

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
  /^(?:(?:is|would) (?:it|now|this|today) (?:a )?(?:good|bad|right|smart|wise|the right|the best|better) (?:time|moment|day|idea|move|call) to|is it time to|is now the time to|should i|shall i|how i (?:can|could|should|do)|how to|how would i go about|how do i go about|how do you|would it be (?:wise|smart|good|a good idea) to|is it (?:a good idea|wise|smart|worth it) to|what if i|what happens if i|what would happen if i|how (?:do|can|would|should) i|can i|could i|may i|am i able to|is it possible to|do you think i should|do you recommend|would you recommend)(?: we)? (.+)$/;
const NEGATED = /^(?:don'?t|do not|dont|never|no need to|no don'?t|no,? don'?t|please don'?t|nope|not) /;
const DONE_ALREADY =
  /^(?:(?:i|we) )?(?:just |already |have |had |'ve )*(?:swapped|bought|sold|sent|traded|converted|paid|wrapped|unwrapped|transferred|exchanged|spent)\b/;

function notNow(t: string, known: Vocabulary, addresses: string[]): Reading | null {
  let m = ABOUT_ACTING.exec(t);
  if (m && ACTING.test(m[1] as string)) {
    const r = readAction(m[1] as string, { known, addresses });
    const form =
      r && isAction(r) && !(('amount' in r && typeof r.amount === 'object' && 'share' in r.amount) || r.kind === 'buy_exact')
        ? intentWords(r)
        : null;
    return {
      kind: 'not_now',
      reply: form
        ? `I don't give trading advice, and I only act when asked outright. If you want it done, say "${form}".`
        : `I don't give trading advice, and I only act when asked outright: say what to do with an amount, like "swap 20 USDC for WETH".`,
    };
  }
  m = NEGATED.exec(t);
  if (m && ACTING.test(t)) return { kind: 'not_now', reply: "OK — I won't do anything." };
  if (DONE_ALREADY.test(t)) return { kind: 'not_now', reply: 'Noted. Ask "what do I hold" to see your wallet as it is now.' };
  return null;
}

export function readMessage(typed: string, opts: ReadOptions = {}): Reading | null {
  const n = normalize(typed, opts.presenceName);
  const known = vocabulary(opts.known);
  const c = { known, addresses: n.addresses, ids: n.ids };
  if (!n.text) return null;
  return (
    readStanding(n.text, c) ??
    notNow(n.text, known, n.addresses) ??
    readQuestion(n.text, known) ??
    readAction(n.text, c) ??
    readTopic(n.text, known)
  );
}

export { normalize };
