// The words after a request ("swap 10 usdc for weth <tail>"): a reason, read past ("… for the
// invoice", "… courier"); words that change the request (a later time, a joke, a repeat, a
// verdict: not done, said why); or words that look like a time or a condition the reader does
// not know ("… at dawn", "… this arvo", "… provided gas is low": asked back). Only a tail with
// none of those words is a reason: reading a time as a reason would act now on a request for
// later, which is the one misreading that spends.
import { distance } from 'fastest-levenshtein';
import type { Vocabulary } from './amount-phrase';

/**
 * Words that change what a request means: a condition, a negation, a time other than now, a
 * doubt, a joke or a hypothesis ("hypothetically, …", "e.g. …"). A part of a message holding one is never dropped to make the rest read as an action.
 */
export const CAUTION =
  /\b(?:if|when|whenever|once|unless|until|after|before|in case|as soon as|should|shouldn'?t|not|never|don'?t|dont|no|maybe|might|perhaps|tomorrow|tonight|later|soon|eventually|sometime|someday|yesterday|ago|last|next|instead|except|or|wait|jk|kidding|joking|hypothetical(?:ly)?|theoretically|in theory|imagine|suppose|pretend|example|e\.?g|dry run|simulate)\b|\bin (?:an?|a few|a couple of) (?:minute|hour|day|week|month|bit|while|moment|sec(?:ond)?)s?\b|\bthis (?:afternoon|evening)\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:noon|midnight)\b|\d/;

/**
 * After a request, words that take it back or make it something else: a joke, a repeat
 * ("twice": one swap would be the wrong amount), a verdict or a report ("… is a bad idea",
 * "… is what I did"), a price or a time to wait for ("at the top", "over the weekend", "eod", "at lunch", "at close"). Unlike CAUTION they are
 * read only in a request's own tail: a sentence beside it ("I've checked the address twice") says nothing against it.
 */
const TAIL_CHANGES =
  /\b(?:kidding|joking|jk|joke|twice|thrice|times|each|every|is|was|were|did|done|would|will|idea|mistake|by|top|bottom|dip|peak|cheap|cheaper|lower|higher|price|weekend|eod|eow|eom|cob|end|lunch(?:time)?|bedtime|overnight|payday|morning|afternoon|evening|night|week|month|year|open|close)\b/;

/**
 * Words of time, doubt or jest, so that a misspelling of one in a request's tail ("tmorow",
 * "tonihgt", "kiding") is not read past as a reason: near one is enough not to act.
 */
const CHANGING_WORDS =
  'tomorrow tonight later weekend sometime someday eventually kidding joking maybe perhaps morning evening afternoon monday tuesday wednesday thursday friday saturday sunday hypothetically theoretically'.split(
    ' ',
  );
const nearChangingWord = (tail: string) =>
  tail.split(' ').some((w) => w.length >= 4 && CHANGING_WORDS.some((c) => distance(w, c) <= (c.length >= 7 ? 2 : 1)));

/**
 * Words that say when or on what condition in ways the reader has no meaning for: a time of
 * day, a day, a month or a holiday said other than the ways above ("at dawn", "this arvo", "on
 * weds", "in march", "over xmas", "soonish"), a preposition of time ("around", "during",
 * "till", "at …"), and the words of a condition ("provided", "assuming", "as long as",
 * "depending on"). A tail holding one is asked about: "on uniswap" or "for rent" says neither.
 */
const UNCLEAR_WHEN = new RegExp(
  [
    String.raw`\b(?:dawn|dusk|sunrise|sunset|daybreak|midday|arvo|fortnight|hours?|minutes?|mins?|seconds?|secs?|moment|jiffy|shortly|presently|anon|anytime|whenever|early|earlier|late|(?:noon|soon|late|early|lunch|evening|morning)ish|o'?clock|am|pm)\b`,
    String.raw`\b(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun|weekday|weekdays|today'?s close)\b`,
    String.raw`\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b`,
    String.raw`\b(?:christmas|xmas|easter|halloween|thanksgiving|new year'?s?|diwali|eid|holidays?)\b`,
    String.raw`\b(?:around|during|till|til|within|starting|upon|while|whilst|at|this)\b`,
    String.raw`\b(?:provided|providing|assuming|given|depending|depends|as long as|so long as|pending|subject to|whether|hopefully|ideally|preferably)\b`,
  ].join('|'),
);

/**
 * A tail that names a chore the request belongs to ("closing out the month", "end of month
 * cleanup", "wrapping up the year") or a meal it pays for ("… for lunch"): its time word is
 * what is being closed, tidied or paid for, not when to act, so it is a reason. Only the whole tail reads so: "… at the end of the month" or
 * "… closing out the month tomorrow" still change the request.
 */
const CHORE = new RegExp(
  [
    "^(?:(?:as|for|just|i'?m|we'?re|am|part of|since i'?m|because i'?m|cause i'?m) )*",
    "(?:(?:closing|wrapping|rounding|tidying|cleaning|squaring|settling|balancing|rebalancing|finishing|clearing|reconciling) (?:out |up |off )?(?:the |my |our |this )?(?:monthly |weekly |quarterly |yearly |annual |month'?s |year'?s )?(?:month|week|quarter|year|books|accounts|budget|portfolio|positions?|taxes)",
    // a meal paid for is a purpose ("… it's for lunch"), where "at lunch" is a time
    "|(?:it'?s |it is |that'?s |this is )?(?:for|to pay for|to cover|towards?) (?:the |my |our |a |his |her |their |your )?(?:team |office |work |group |family |birthday |business )?(?:lunch|breakfast|dinner|brunch)(?: bill| tab)?",
    '|(?:my |the |our |a |some |for )?(?:end[- ]of[- ](?:the[- ])?(?:month|week|quarter|year)|month[- ]?end|year[- ]?end|quarter[- ]?end|eom|eoy|monthly|weekly|quarterly|yearly|annual|tax[- ]season) (?:clean[- ]?up|tidy(?:[- ]up)?|rebalanc(?:e|ing)|housekeeping|reshuffle|review|admin|chores?|budgeting|bookkeeping|accounting|stuff|thing))$',
  ].join(''),
);

export type Tail = {
  /** The request without its tail. */
  plain: string;
  tail: string;
  /** `reason`: read past; `changes`: not done, said why; `unclear`: a time or a condition asked about. */
  says: 'reason' | 'changes' | 'unclear';
};

/**
 * "buy 200 dai with usdc for the invoice", "pay 15 usdc to 0x… courier": words after the last
 * token, amount or address that carry nothing to decide (no number, token, address, or word of
 * time, condition or jest) are a reason, not part of the request; read without them.
 */
export function tailOf(text: string, known: Vocabulary): Tail | null {
  const words = text.split(' ');
  let last = -1;
  words.forEach((w, i) => {
    if (known.has(w) || /^addr\d+$/.test(w) || /^(?:usd|dollars?|cash|stables?)$/.test(w)) last = i;
  });
  const tail = words.slice(last + 1).join(' ');
  if (last < 1 || !tail || words.slice(last + 1).some((w) => known.has(w))) return null;
  if (CHORE.test(tail)) return { plain: words.slice(0, last + 1).join(' '), tail, says: 'reason' };
  const changes = CAUTION.test(tail) || TAIL_CHANGES.test(tail) || nearChangingWord(tail);
  return { plain: words.slice(0, last + 1).join(' '), tail, says: changes ? 'changes' : UNCLEAR_WHEN.test(tail) ? 'unclear' : 'reason' };
}
