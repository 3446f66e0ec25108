// What is said of a request that is not done now: why (a later time, a joke, a what-if), with
// the words that would do it now when it names an exact amount; or, for a tail that may change
// it ("… at dawn"), the question of what the tail means.
import { intentWords, isAction, type Reading } from './reading';
import type { Tail } from './request-tail';

/** The words that would do a request now, when it names an exact amount. */
const nowWords = (r: Reading | null) =>
  isAction(r) && 'amount' in r && typeof r.amount === 'object' && 'exact' in r.amount ? intentWords(r) : null;

/**
 * A request not done for the words named ("… in an hour", "maybe later …"): said why, and, when
 * it names an exact amount, the words that would do it now.
 */
export function notDone(r: Reading | null, words: string, why: string): Reading {
  const plain = nowWords(r);
  return {
    kind: 'not_now',
    reply: `I haven't done that: I act only on a request to act now, and "${words}" ${why}.${plain ? ` To do it now, say "${plain}".` : ''}`,
  };
}

const shown = (tail: string) => (tail.length > 60 ? `${tail.slice(0, 60)}…` : tail);

/** A request whose tail changes it ("… in an hour", "… twice"), or may ("… at dawn": asked what it means). */
export function tailed(r: Reading, t: Tail): Reading {
  if (t.says === 'changes') return notDone(r, shown(t.tail), 'changes it');
  const plain = nowWords(r);
  return {
    kind: 'ask',
    question: `By "${shown(t.tail)}" do you mean when to do it, or on what condition? I act only now, or when a price is reached ("if WETH drops below 2000 buy $50 of WETH"), so I haven't done it.${plain ? ` To do it now, say "${plain}".` : ''}`,
  };
}
