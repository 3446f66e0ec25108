// Reads what a person wants watched or stopped: a price alert ("let me know when eth goes
// under 2000"), a daily balance report ("send me my balance every day at 9am"), an action on
// a price ("if weth drops below 2k, buy $50 of weth"), the list ("what are you keeping an eye
// on for me") and cancelling ("stop watching eth"). A reading is put in the one form the
// standing parser knows ("tell me when WETH is below 2000 USD"); what it cannot hold (a weekly
// schedule, an action on a schedule) is said plainly. Works on normalized text.
import { tokenOf, type Vocabulary } from './amount-phrase';
import { readAction } from './read-action';
import { intentWords, isAction, type Reading } from './reading';

const TOK = "(?:the )?(?:price of )?([a-z][a-z0-9.]{1,15})(?:'s price| price)?";
// Verbs in any person or tense people type them in ("drops", "drop", "dropping", "dipped").
const forms = (stems: string) =>
  stems
    .split('|')
    .map((v) =>
      v.includes(' ')
        ? v.replace(/^(\w+)/, '$1(?:s|es|ing|ed)?')
        : v.endsWith('y')
          ? `${v.slice(0, -1)}(?:y|ies|ied|ying)`
          : `${v}(?:s|es|ing|ed|ped|ping)?`,
    )
    .join('|');
const DOWN = `${forms('drop|dip|fall|sink|crash|tank|dump|go down|get down|come down|slide|slid|decline')}|fell|went down`;
const UP = `${forms('rise|climb|jump|pump|moon|go up|get up|spike|rally|break out|soar|exceed|surpass|top|overtake|pass|break')}|rose|went up|broke`;
const FLAT = `${forms('is|go|get|trade|move|hit|reach|touch|cross|get to|fall back|drop back|arrive at|land at|sit at|settle at|come to')}|is at|be at|'s|is trading|goes|gets`;
const BELOW = 'below|under|beneath|less than|lower than|sub|<';
const ABOVE = 'above|over|more than|higher than|past|beyond|>|north of';
const MOVE = String.raw`(?:(${DOWN}|${UP}|${FLAT})(?: to| back)? )?(?:(${BELOW}|${ABOVE}) )?(?:to )?(\d+(?:\.\d+)?)(?: usd)?`;
const ASK_ME =
  '(?:(?:tell|notify|alert|ping|warn|message|text|msg|dm|remind|email|let|shout at|buzz|inform|update|advise|hit) me(?: know| up)?|give(?: me| us)? a (?:shout|ring|call|heads up|buzz|yell|bell|hoy)|drop me a (?:line|message|note)|keep me (?:posted|updated))';
const WHEN = '(?:when|if|once|as soon as|whenever|the moment|in case|should)';
const DAY =
  'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend|week|month|hour|minute|morning|evening|night|\\d+ (?:hours|minutes|days|weeks)';

type Ctx = { known: Vocabulary; addresses: string[]; ids?: string[] };

const ask = (question: string): Reading => ({ kind: 'ask', question });

const IS_BELOW = new RegExp(`^(?:${BELOW})$`);
const GOES_DOWN = new RegExp(`^(?:${DOWN})`);
const GOES_UP = new RegExp(`^(?:${UP})`);

/** The side of the line, from the words: an explicit side wins; a move down is below, up is above. */
function sideOf(verb: string | undefined, side: string | undefined): 'below' | 'above' | null {
  if (side) return IS_BELOW.test(side) ? 'below' : 'above';
  if (!verb) return null;
  if (GOES_DOWN.test(verb)) return 'below';
  if (GOES_UP.test(verb)) return 'above';
  return null;
}

const watched = (w: string, known: Vocabulary) => {
  const t = tokenOf(w, known);
  if (!t) return null;
  const s = 'token' in t ? t.token : t.unknown;
  return (s === 'eth' ? 'weth' : s).toUpperCase();
};

function priceLine(tok: string, verb: string | undefined, side: string | undefined, price: string, c: Ctx) {
  const token = watched(tok, c.known);
  // "if the price dips under 2500": no token named, and none is guessed
  if (!token && /^(?:price|it|that)$/.test(tok))
    return ask(
      `The price of which token? Name it, like "tell me when WETH is below ${price} USD" or "if WETH drops below ${price} USD swap 20 USDC for WETH".`,
    );
  if (!token) return null;
  const op = sideOf(verb, side);
  if (!op)
    return ask(
      `Should I tell you when ${token} goes above ${price} USD, or below it? Say it like "tell me when ${token} is below ${price} USD".`,
    );
  return { token, op, price };
}

// A daily report is read by its parts wherever they stand ("each day 21:00 tell me my balance",
// "daily balance at 7pm", "every day at 7 in the morning, report my balance to me"): a mark
// of every day, the balance, a time, and no other action in the message.
// "daily" before a cap or limit names the policy's day, not a schedule ("what's my daily cap")
const EVERY_DAY =
  /\b(?:every ?day|daily(?! (?:cap|limit|budget|max(?:imum)?|allowance|spend(?:ing)?)\b)|each day|(?:every|each) (?:morning|evening|night))\b/;
const REPORTED = /\b(?:balances?|holdings|portfolio|wallet|summary|report|update|snapshot|net worth)\b/;
const OTHER_ACTION = /\b(?:swap|exchange|trade|convert|buy|sell|wrap|unwrap|spend|purchase|transfer|pay)\b|\bsend (?!me\b)/;
const TIME =
  /\b(?:at (\d{1,2})(?::(\d{2}))?|(\d{1,2}):(\d{2})|(\d{1,2}) ?(?=am\b|pm\b|a\.m|p\.m|o'clock))(?: ?(am|pm|a\.m|p\.m|o'clock))?(?: utc)?(?: in the (morning|afternoon|evening)| at (night))?/;

function readDaily(t: string): Reading | null {
  if (!EVERY_DAY.test(t) || !REPORTED.test(t) || OTHER_ACTION.test(t)) return null;
  const m = TIME.exec(t);
  if (!m) return ask('At what time of day (UTC)? Say it like "every day at 09:00 tell me my balance".');
  const hour = (m[1] ?? m[3] ?? m[5]) as string;
  let h = Number(hour);
  const min = m[2] ?? m[4] ?? '00';
  const half = m[6] ?? (m[7] === 'morning' ? 'am' : m[7] || m[8] ? 'pm' : /\bevery (?:evening|night)\b/.test(t) ? 'pm' : undefined);
  if (half?.startsWith('p') && h < 12) h += 12;
  if (half?.startsWith('a') && h === 12) h = 0;
  if (h > 23 || Number(min) > 59)
    return ask(`I can't set that up: ${hour}:${min} is not a time of day: give one from 00:00 to 23:59 (UTC).`);
  return { kind: 'watch', text: `every day at ${String(h).padStart(2, '0')}:${min} tell me my balance` };
}

const LISTING = [
  /^(?:what|which (?:tokens|prices|alerts)) (?:are |r )?(?:you|u) (?:keeping an eye on|watching|tracking|monitoring|keeping track of|looking out for|doing for me)(?: for me)?$/,
  /^(?:(?:list|show|what are|what're|which are|see|check|any|do i have any|what)(?: me)? )?(?:all )?(?:my |the |current |active |existing )*(?:standing intents|standing orders|alerts|price alerts|reminders|watches|watchlist|triggers|automations|rules)(?: do i have| have i set| are set| are active)?$/,
  /^(?:which|what) (?:alerts|price alerts|standing intents|reminders|watches|triggers)(?: (?:are|do i have|have i got|are there|have you got))?(?: (?:active|set|on|running|going))?$/,
];
const CANCEL_ID = /^(?:cancel|stop|delete|remove|kill|drop|end|disable|turn off) (?:the |my |alert |standing intent )*standing(\d+)$/;
const CANCEL_DAILY =
  /^(?:stop|cancel|delete|remove|turn off|disable|end|kill) (?:the |my )?(?:daily )?(?:balance )?(?:report|reports|update|updates)(?: every day| daily)?$/;
const CANCEL_ALL =
  /^(?:stop|cancel|delete|remove|clear|turn off|disable|kill) (?:all|everything|every)(?: of)?(?: my| the| your)?(?: alerts| standing intents| watches| reminders| you(?:'re| are) watching)?$|^stop watching (?:everything|all)$/;
const CANCEL_TOKEN =
  /^(?:stop|quit|cancel|delete|remove|turn off|disable|forget) (?:watching|tracking|monitoring|(?:alerting|pinging|notifying|warning|telling) me (?:about|on|of)|(?:the |my )?(?:price )?alerts? (?:for|on|about)|(?:my )?(?:alert|watch) on) (?:the )?([a-z][a-z0-9.]{1,15})(?: price)?$/;
// Cancelling read by its parts ("kill the weth alert", "cancel the daily balance msg"): a verb
// of ending, a word for something watched, and which one.
const ENDING = /^(?:stop|cancel|delete|remove|kill|turn off|switch off|disable|drop|end|clear|get rid of|forget|no more|unwatch|untrack)\b/;
const WATCHED =
  /\b(?:alerts?|watch(?:es|ing)?|tracking|monitoring|notifications?|reminders?|standing intents?|reports?|updates?|messages?|summary|sending|telling|texting|messaging|pinging)\b|^(?:unwatch|untrack)\b/;

/** "what alerts do i have set up", "any reminders running?": asking after what is watched, nothing more. */
const ASKING_AFTER = /^(?:what|which|any|show|list|see|do i have|have i (?:got|set))\b/;
const WATCHING_WHAT = /^what (?:am i|are we|do i have you|have i got you|did i ask you to be) (?:watching|tracking|monitoring)$/;
const LISTED = /\b(?:alerts|reminders|watches|standing intents|standing orders|triggers|automations|watchlist)\b/;

function cancelByWords(t: string, c: Ctx): Reading | null {
  if (!ENDING.test(t)) return null;
  if (/\b(?:daily|every ?day|each day|reports?|summary)\b/.test(t)) return { kind: 'stop_watching', what: 'daily' };
  if (!WATCHED.test(t)) return null;
  if (/\b(?:all|everything|every)\b/.test(t)) return { kind: 'stop_watching', what: 'all' };
  const named = t.split(' ').filter((w) => c.known.has(w));
  const token = named.length === 1 ? watched(named[0] as string, c.known) : null;
  return token ? { kind: 'stop_watching', what: { token } } : null;
}

const SCHEDULE = new RegExp(`(?:\\b(?:every|each|once an?)|^on) (?:other )?(${DAY})s?\\b|\\b(week|hour|month)ly\\b`);
const ALERTS = [
  new RegExp(`^${ASK_ME} ${WHEN} ${TOK} ${MOVE}$`),
  new RegExp(`^(?:set (?:up )?(?:an? )?)?(?:price )?(?:alert|notify|ping|warn)(?: me)?(?: (?:for|on|when|if))? ${TOK} ${MOVE}$`),
  new RegExp(
    `^(?:watch|track|monitor|keep an eye on) ${TOK} (?:and|then)? ?(?:tell|let|ping|alert|notify) me(?: know)? ${WHEN} (?:it )?${MOVE}$`,
  ),
];
const ON_PRICE = new RegExp(`^${WHEN} ${TOK} ${MOVE},? (?:then |please )?(.+)$`);
/** The condition after the action: "sell 0.1 weth for usdc when eth goes above 4000". */
const PRICE_AFTER = new RegExp(`^(.+?),? (?:but )?(?:only )?${WHEN} ${TOK} ${MOVE}$`);
const JUST_TELL = new RegExp(`^(?:${ASK_ME}|tell me|ping me|alert me|notify me)$`);

const UNSUPPORTED_DAILY =
  'Every day I can only report your balance ("every day at 09:00 tell me my balance"). To act, tie it to a price: "if WETH drops below 2000 buy $50 of WETH".';

/** "if WETH drops below 2000, buy $50 of WETH": the action must be one a later fire can do as said. */
function onPrice(m: RegExpExecArray, c: Ctx): Reading | null {
  const rest = m[5] as string;
  const line = priceLine(m[1] as string, m[2], m[3], m[4] as string, c);
  if (JUST_TELL.test(rest))
    return !line || 'kind' in line ? line : { kind: 'watch', text: `tell me when ${line.token} is ${line.op} ${line.price} USD` };
  const action = readAction(rest, c);
  if (!action || !isAction(action)) return action;
  if (!line || 'kind' in line) return line;
  if (action.kind === 'buy_exact' || ('amount' in action && typeof action.amount === 'object' && 'share' in action.amount))
    return ask(
      `For an action on a price I need a fixed amount, in tokens or dollars: say it like "if ${line.token} drops below ${line.price} buy $50 of WETH".`,
    );
  return {
    kind: 'watch',
    text: `if ${line.token} ${line.op === 'below' ? 'drops below' : 'rises above'} ${line.price} USD ${intentWords(action)}`,
  };
}

export function readStanding(t: string, c: Ctx): Reading | null {
  if (LISTING.some((re) => re.test(t)) || WATCHING_WHAT.test(t) || (ASKING_AFTER.test(t) && LISTED.test(t) && !/\d/.test(t)))
    return { kind: 'watching' };
  const byId = CANCEL_ID.exec(t);
  if (byId) return { kind: 'stop_watching', what: { id: c.ids?.[Number(byId[1])] as string } };
  if (CANCEL_DAILY.test(t) && /daily|report/.test(t)) return { kind: 'stop_watching', what: 'daily' };
  if (CANCEL_ALL.test(t)) return { kind: 'stop_watching', what: 'all' };
  const stopToken = CANCEL_TOKEN.exec(t);
  if (stopToken) {
    const token = watched(stopToken[1] as string, c.known);
    return token ? { kind: 'stop_watching', what: { token } } : null;
  }
  const cancelled = cancelByWords(t, c);
  if (cancelled) return cancelled;
  const daily = readDaily(t);
  if (daily) return daily;
  // schedules the standing service cannot hold
  const schedule = SCHEDULE.exec(t);
  if (schedule) {
    return {
      kind: 'unsupported',
      reply: `I can't repeat things every ${schedule[1] ?? schedule[2]} yet. I can report your balance every day at a set time ("every day at 09:00 tell me my balance"), watch a price ("tell me when WETH is below 2500 USD") or act on one ("if WETH drops below 2000 buy $50 of WETH").`,
    };
  }
  if (EVERY_DAY.test(t)) return { kind: 'unsupported', reply: UNSUPPORTED_DAILY };
  for (const re of ALERTS) {
    const alert = re.exec(t);
    if (!alert) continue;
    const line = priceLine(alert[1] as string, alert[2], alert[3], alert[4] as string, c);
    if (!line || 'kind' in line) return line;
    return { kind: 'watch', text: `tell me when ${line.token} is ${line.op} ${line.price} USD` };
  }
  const m = ON_PRICE.exec(t);
  if (m) return onPrice(m, c);
  const after = PRICE_AFTER.exec(t);
  // a reminder of something else, or at a time, is none of the above: said what can be watched instead
  if (!after) return REMINDER.test(t) ? { kind: 'unsupported', reply: REMINDER_REPLY } : null;
  // put in the order ON_PRICE reads: the token, the move, the side, the price, then the action
  const [, action, ...line] = after;
  return onPrice(Object.assign([after[0], ...line, action as string], { index: 0, input: t }) as RegExpExecArray, c);
}

/** "remind me to check weth tomorrow", "set a reminder for 5pm": a reminder with no price to wait for. */
const REMINDER =
  /\b(?:remind (?:me|us) (?:to|about|at|in|on|tomorrow|tonight|later|next|every|this)\b|set (?:me )?(?:a|an) (?:reminder|alarm)|(?:a|an) (?:reminder|alarm) (?:to|for|at|in|on))\b/;
const REMINDER_REPLY =
  'I can\'t remind you at a time yet. I can tell you when a price is reached ("tell me when WETH is below 2500 USD") or report your balance every day at a set time ("every day at 09:00 tell me my balance").';
