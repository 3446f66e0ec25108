// Reads a request to act — swap, sell, buy, wrap, unwrap, send — in the ways people word it
// ("buy 0.01 eth with usdc", "use 9 usdc to buy weth", "pay 0x… 3 usdc", "20usdc->weth",
// "swap all my dai for usdc", "buy 30 dollars of weth"). Whatever would need a guess (no
// amount, two amounts, an unknown token, "a bit", a sale with nothing to receive, no address)
// is a question back, never an action. Null: the message is not a request to act.

import { notWholeAddress } from '../replies/replies';
import { type Phrase, phraseOf, type Vocabulary } from './amount-phrase';
import { tailed } from './not-done';
import { type Amount, intentWords, isAction, type Reading } from './reading';
import { tailOf } from './request-tail';

const S = (t: string) => t.toUpperCase();
const ask = (question: string): Reading => ({ kind: 'ask', question });
const unknownToken = (w: string, known: Vocabulary): Reading => ({
  kind: 'ask',
  question: `I don't know the token "${w.slice(0, 40).toUpperCase()}". I know ${[...known].map(S).join(', ')} — which one did you mean?`,
  unknown: w,
});

const SWAP = '(?:swap|exchange|trade|convert|change|turn|switch|flip)';
const BUY = "(?:buy|get|purchase|grab|acquire|pick up|order|gimme|give|i want|i need|i'd like|id like|i would like)";
const SEND = '(?:send|transfer|give|pay|wire|move)';
const TO = '(?:for|to|into|in|->)';
const ADDR = '(addr\\d+)';

type Ctx = { known: Vocabulary; addresses: string[] };

const addressAt = (c: Ctx, placeholder: string) => c.addresses[Number(placeholder.slice(4))] as string;

const ZERO = /^0*(?:\.0*)?$/;
/** An amount of nothing is a question back too: "sell 0 WETH" asks nothing of the chain. */
const zero = (p: Phrase): Reading | null =>
  p && (('amount' in p && 'exact' in p.amount && ZERO.test(p.amount.exact)) || ('usdOf' in p && ZERO.test(p.usdOf)))
    ? ask('The amount must be more than zero: say how much, like "swap 20 USDC for WETH".')
    : null;

/** "half weth": of the holding, or of one token? Asked in those words. */
const bareShare = (p: Phrase): Reading | null =>
  p && 'vague' in p && p.bare && p.vague
    ? ask(
        `By "${p.bare} ${S(p.vague)}" do you mean ${p.bare} of your ${S(p.vague)}, or ${p.bare} of one ${S(p.vague)}? Say "${p.bare} of my ${S(p.vague)}", or the amount as a number.`,
      )
    : null;

/** Exactly one amount, on the side that is spent: a swap, or a buy by value. */
function swapOf(spend: Phrase, into: string | null, c: Ctx, verb: 'swap' | 'sell'): Reading | null {
  if (!spend) return null;
  if ('unknown' in spend) return unknownToken(spend.unknown, c.known);
  const none = zero(spend);
  if (none) return none;
  let target: string | null = null;
  if (into !== null) {
    const usd = /^(?:usd|dollars?|cash|stables?|stablecoins?)$/.test(into);
    const t = usd ? null : phraseOf(into, c.known);
    if (t && 'unknown' in t) return unknownToken(t.unknown, c.known);
    if (t && ('amount' in t || 'usdOf' in t)) {
      const have = 'amount' in t ? t.token : 'USD';
      return ask(
        `That names two amounts. Which one do you mean: what to spend ("${verb} … ${S(spendToken(spend) ?? 'USDC')} for ${S(have)}") or what to receive ("buy … ${S(have)} with ${S(spendToken(spend) ?? 'USDC')}")? Give just one.`,
      );
    }
    if (!usd && !(t && 'token' in t)) return null;
    target = t && 'token' in t ? t.token : null;
  }
  if ('usdOf' in spend) {
    if (!spend.token) return target ? { kind: 'buy_usd', usd: spend.usdOf, token: target, payWith: null } : null;
    if (!target)
      return ask(
        `Spend ${spend.usdOf} USD of ${S(spend.token)} on which token? For example "buy $${spend.usdOf} of WETH with ${S(spend.token)}".`,
      );
    return { kind: 'buy_usd', usd: spend.usdOf, token: target, payWith: spend.token };
  }
  const token = spendToken(spend);
  if ('vague' in spend || !('amount' in spend)) {
    const bare = bareShare(spend);
    if (bare) return bare;
    const what = token ? S(token) : 'of which token';
    return ask(
      `How much ${what} should I ${verb}${target ? ` for ${S(target)}` : ''}? Say it with a number, like "${verb} 20 ${token ? S(token) : 'USDC'} for ${target ? S(target) : token === 'weth' ? 'USDC' : 'WETH'}".`,
    );
  }
  if (into === null && verb === 'sell') {
    return ask(
      `Sell ${describeAmount(spend.amount, spend.token)} for which token? Say it like "sell ${example(spend.amount)} ${S(spend.token)} for ${spend.token === 'usdc' ? 'WETH' : 'USDC'}".`,
    );
  }
  if (into === null)
    return ask(
      `Swap ${describeAmount(spend.amount, spend.token)} for which token? Say it like "swap ${example(spend.amount)} ${S(spend.token)} for ${spend.token === 'weth' ? 'USDC' : 'WETH'}".`,
    );
  if (spend.token === 'eth' && target === 'weth') return wrapOf({ kind: 'wrap', amount: spend.amount });
  if (spend.token === 'weth' && target === 'eth') return { kind: 'unwrap', amount: spend.amount };
  if (spend.token === 'eth' && 'share' in spend.amount && spend.amount.share.num === spend.amount.share.den) return allEth(verb);
  return { kind: 'swap', amount: spend.amount, from: spend.token, to: target };
}

const spendToken = (p: Phrase) => (p && 'token' in p ? p.token : p && 'vague' in p ? p.vague : null);
const describeAmount = (a: Amount, token: string) => ('exact' in a ? `${a.exact} ${S(token)}` : `${a.share.said} of your ${S(token)}`);
const example = (a: Amount) => ('exact' in a ? a.exact : '10');
const allEth = (verb: string) =>
  ask(
    `How much ETH should I ${verb}? I won't spend all of it: some has to stay to pay for gas. Say it with a number, like "${verb} 0.5 ETH${verb === 'wrap' ? '' : ' for USDC'}".`,
  );
function wrapOf(r: Extract<Reading, { kind: 'wrap' }>): Reading {
  return 'share' in r.amount && r.amount.share.num === r.amount.share.den ? allEth('wrap') : r;
}

/** "buy A with B": one side names an amount; the other only a token. */
function buyOf(want: string, pay: string | null, c: Ctx): Reading | null {
  const w = phraseOf(want, c.known);
  const p = pay === null ? null : phraseOf(pay, c.known);
  if (!w || (pay !== null && !p)) return null;
  if ('unknown' in w) return unknownToken(w.unknown, c.known);
  if (p && 'unknown' in p) return unknownToken(p.unknown, c.known);
  const none = zero(w) ?? zero(p);
  if (none) return none;
  const payToken = p ? spendToken(p) : null;
  if ('usdOf' in w) {
    if (!w.token) return null;
    if (p && ('amount' in p || 'usdOf' in p))
      return ask(
        `That names two amounts. Give just one: "buy $${w.usdOf} of ${S(w.token)}" or "swap … ${S(payToken ?? 'USDC')} for ${S(w.token)}".`,
      );
    return { kind: 'buy_usd', usd: w.usdOf, token: w.token, payWith: payToken };
  }
  if ('amount' in w) {
    if (p && ('amount' in p || 'usdOf' in p))
      return ask(
        `That names two amounts. Give just one: what to receive ("buy ${example(w.amount)} ${S(w.token)} with ${S(payToken ?? 'USDC')}") or what to spend ("swap … ${S(payToken ?? 'USDC')} for ${S(w.token)}").`,
      );
    if ('share' in w.amount) return ask(`How much ${S(w.token)} should I buy? Say it with a number, like "buy 0.01 ${S(w.token)}".`);
    if (p && 'vague' in p)
      return ask(
        `How much ${S(p.vague ?? 'USDC')} should I spend? Say "buy ${w.amount.exact} ${S(w.token)} with ${S(p.vague ?? 'USDC')}" to pay what it costs.`,
      );
    return { kind: 'buy_exact', amount: w.amount.exact, token: w.token, payWith: payToken };
  }
  const wanted = 'token' in w ? w.token : w.vague;
  if (p && 'usdOf' in p && wanted) return { kind: 'buy_usd', usd: p.usdOf, token: wanted, payWith: p.token };
  if (p && 'amount' in p && wanted) return swapOf(p, wanted, c, 'swap');
  return ask(
    `How much ${wanted ? S(wanted) : ''} should I buy? Say it with a number, like "buy $20 of ${S(wanted ?? 'WETH')}" or "buy 0.01 ${S(wanted ?? 'WETH')}${payToken ? ` with ${S(payToken)}` : ''}".`.replace(
      '  ',
      ' ',
    ),
  );
}

function sendOf(what: string, placeholder: string | null, c: Ctx, rest = ''): Reading | null {
  const p = phraseOf(what, c.known);
  if (!p) return null;
  if ('unknown' in p) return unknownToken(p.unknown, c.known);
  const none = zero(p);
  if (none) return none;
  if (!placeholder) {
    // an address elsewhere in the message is not this one's: the message's parts are read apart
    if (c.addresses.length > 0) return null;
    // "to bob", "to my brother": an address is what a send needs, and no name stands for one
    if (/^(?:to|for)\b/.test(rest) || rest === '') {
      const shown = 'amount' in p ? describeAmount(p.amount, p.token) : 'that';
      return ask(`Send ${shown} to which address? I only send to a full address: say it like "send 5 USDC to 0x…".`);
    }
    return null;
  }
  if (!('amount' in p)) {
    const bare = bareShare(p);
    if (bare) return bare;
    const t = spendToken(p);
    return ask(`How much ${t ? S(t) : ''} should I send? Say it with a number, like "send 5 ${S(t ?? 'USDC')} to 0x…".`.replace('  ', ' '));
  }
  return { kind: 'send', amount: p.amount, token: p.token, to: addressAt(c, placeholder) };
}

function wrapping(m: RegExpExecArray, c: Ctx): Reading | null {
  const unwrap = !!m[1];
  const raw = m[2] as string;
  // "wrap 0.1", "unwrap everything": the token is the one implied
  const said = raw.replace(/^(?:everything|it all|all of it|the lot)$/, 'all');
  const own = phraseOf(said, c.known);
  const p = own && !('vague' in own && own.vague === null) ? own : phraseOf(`${said} ${unwrap ? 'weth' : 'eth'}`, c.known);
  if (!p || 'unknown' in p) return p ? unknownToken(p.unknown, c.known) : null;
  // only ETH wraps (and WETH unwraps): "wrap 10 usdc" read as 10 ETH would spend the wrong token
  const named = 'token' in p ? p.token : 'vague' in p ? p.vague : null;
  if (named && named !== 'eth' && named !== 'weth')
    return ask(
      `Only ETH wraps into WETH (and WETH unwraps into ETH); ${S(named)} doesn't. To trade it, say it like "swap 10 ${S(named)} for WETH".`,
    );
  const none = zero(p);
  if (none) return none;
  if (!('amount' in p))
    return (
      bareShare(p) ??
      ask(
        `How much ${unwrap ? 'WETH should I unwrap' : 'ETH should I wrap'}? Say it with a number, like "${unwrap ? 'unwrap 0.1 WETH' : 'wrap 0.1 ETH'}".`,
      )
    );
  return unwrap ? { kind: 'unwrap', amount: p.amount } : wrapOf({ kind: 'wrap', amount: p.amount });
}

const SOME_TOKEN = '[a-z][a-z0-9.]{1,15}';

/**
 * "I want", "I'd like" say a wish, and a wish names a token only when it names one we know:
 * "I'd like more dollars set aside for the holidays" asks nothing about a token "holidays".
 */
const wished = (verb: string, r: Reading | null): Reading | null =>
  /^(?:i|id|i'd) /.test(verb) && r?.kind === 'ask' && 'unknown' in r ? null : r;

const WITHDRAW_REPLY =
  'I don\'t make withdrawals from a chat: they go only to the addresses on your policy\'s withdraw allowlist, and only an admin key makes one. To pay an address within your spend policy, say it like "send 5 USDC to 0x…".';

/** The forms of a request to act, tried in order; a form whose handler answers null lets the next one try. */
const FORMS: [RegExp, (m: RegExpExecArray, c: Ctx) => Reading | null][] = [
  // a withdrawal is never a tool (docs/behaviour.md): said so, rather than read as a send around the allowlist
  [/^(?:withdraw|cash out to) .*\baddr\d+\b/, () => ({ kind: 'unsupported', reply: WITHDRAW_REPLY })],
  // a 0x… where a send's address goes that is not a whole one (normalize.ts keeps whole ones as addr0…): said so
  [
    new RegExp(`^${SEND} (?:.+ )?(0x[0-9a-z]*)\\b`),
    (m) => ask(`${notWholeAddress(m[1] as string)}. Say it like "send 5 USDC to 0x…" with the whole address.`),
  ],
  // wrap / unwrap: the token is implied
  [/^(un)?wrap (.+?)(?: (?:to|into|for) (?:w?eth))?$/, wrapping],
  // send / pay an address
  [new RegExp(`^${SEND} ${ADDR} (.+)$`), (m, c) => sendOf(m[2] as string, m[1] as string, c)],
  // what follows the address ("… to 0x… for my friend margaret", "… as soon as it lands") is read as any tail is (request-tail.ts)
  [new RegExp(`^${SEND} (.+?)(?: to| over to| for)? ${ADDR}$`), (m, c) => sendOf(m[1] as string, m[2] as string, c)],
  // "send 5 dai to my friend, her address is 0x…"
  [
    new RegExp(`^${SEND} (.+?) (?:to|for) [a-z' ]+? (?:(?:his|her|their|the|my|whose) )?(?:address|wallet)(?: is| =| being)? ${ADDR}$`),
    (m, c) => sendOf(m[1] as string, m[2] as string, c),
  ],
  [/^(?:send|transfer|wire) (.+?)(?: (to .+))?$/, (m, c) => sendOf(m[1] as string, null, c, m[2] ?? '')],
  // "send bob 5 usdc", "pay my landlord 20 dai": a name where the address goes
  [
    /^(?:send|transfer|wire|pay) ((?:my )?[a-z][a-z']{1,20}) (\d+(?:\.\d+)? [a-z][a-z0-9.]*)$/,
    (m, c) => sendOf(m[2] as string, null, c, `to ${m[1]}`),
  ],
  // "use 9 usdc to buy weth", "spend 20 usdc on weth", "pay 9 usdc for weth"
  [
    /^(?:use|spend|put|pay) (.+?) (?:to buy|to get|to purchase|on|for|in|into|to) (?:some )?(.+)$/,
    (m, c) => swapOf(phraseOf(m[1] as string, c.known), m[2] as string, c, 'swap'),
  ],
  // swap A for B, sell A [for B]; the split is at the last "for"/"to"/"into" ("swap everything in my dai for usdc").
  // "convert 1 weth to usd" sells for the default stablecoin, as "sell 1 weth" does.
  [
    new RegExp(`^(${SWAP}|sell|dump|offload|cash out|liquidate) (.+?)(?: ${TO} (${SOME_TOKEN}|\\d+(?:\\.\\d+)? ${SOME_TOKEN}))?$`),
    (m, c) => {
      const sell = /^(?:sell|dump|offload|cash out|liquidate)$/.test(m[1] as string);
      return swapOf(phraseOf(m[2] as string, c.known), m[3] ?? null, c, sell ? 'sell' : 'swap');
    },
  ],
  // "swap 20 for weth", "spend 50 on weth": a number with no token (nor $) to spend is asked, never taken as dollars
  [
    new RegExp(`^(?:${SWAP}|sell|spend|use|put) (\\d+(?:\\.\\d+)?) (?:for|to|into|on|in) (${SOME_TOKEN})$`),
    (m, c) => {
      const into = phraseOf(m[2] as string, c.known);
      if (into && 'unknown' in into) return unknownToken(into.unknown, c.known);
      const t = into && 'token' in into && into.token ? S(into.token) : null;
      return t
        ? ask(
            `${m[1]} of which token? Say it like "swap ${m[1]} ${t === 'USDC' ? 'DAI' : 'USDC'} for ${t}", or "buy $${m[1]} of ${t}" for dollars.`,
          )
        : null;
    },
  ],
  // "swap 3/4 weth usdc": no word between the two tokens, when what comes first is an amount
  [
    new RegExp(`^(${SWAP}|sell) (.+) (${SOME_TOKEN})$`),
    (m, c) => {
      const p = phraseOf(m[2] as string, c.known);
      return p && ('amount' in p || 'vague' in p) && c.known.has(m[3] as string)
        ? swapOf(p, m[3] as string, c, m[1] === 'sell' ? 'sell' : 'swap')
        : null;
    },
  ],
  // "buy 25 usdc worth of weth": the amount named is what is spent
  [
    new RegExp(`^(?:${BUY}) (\\d+(?:\\.\\d+)? ${SOME_TOKEN}) (?:worth|in value) of (${SOME_TOKEN})$`),
    (m, c) => swapOf(phraseOf(m[1] as string, c.known), m[2] as string, c, 'swap'),
  ],
  // "buy 20 usdc of weth" as "buy $20 of weth": only a dollar coin reads so ("buy 2 weth of usdc" may receive the 2 WETH)
  [
    new RegExp(`^(?:${BUY}) (\\d+(?:\\.\\d+)? (?:usdc|usdt|dai)) of (${SOME_TOKEN})$`),
    (m, c) => swapOf(phraseOf(m[1] as string, c.known), m[2] as string, c, 'swap'),
  ],
  // buy A with B, buy A for B (B an amount), buy A
  [
    new RegExp(`^(${BUY}) (.+?) (?:with|using|for|from|pay with|paying with|paid with|and pay with|in exchange for|out of) (.+)$`),
    (m, c) => wished(m[1] as string, buyOf(m[2] as string, m[3] as string, c)),
  ],
  [new RegExp(`^(${BUY}) (.+)$`), (m, c) => wished(m[1] as string, buyOf(m[2] as string, null, c))],
  // "top up my weth with 10 usdc": spend that on the token topped up; "… with $10" buys that much of it
  [
    new RegExp(
      `^(?:top up|top off|topup|refill|fill up|add to) (?:my |the |our )?(${SOME_TOKEN})(?: balance| bag| stack| position)? (?:with|using|by) (.+)$`,
    ),
    (m, c) =>
      /^\$|\b(?:dollars?|usd|bucks)$/.test(m[2] as string)
        ? buyOf(`${m[2]} of ${m[1]}`, null, c)
        : swapOf(phraseOf(m[2] as string, c.known), m[1] as string, c, 'swap'),
  ],
  // no verb: "20 usdc to weth" (as "20usdc->weth" reads), "$15 of usdc"
  [
    new RegExp(`^(\\d+(?:\\.\\d+)? ${SOME_TOKEN}) ${TO} (${SOME_TOKEN})$`),
    (m, c) => swapOf(phraseOf(m[1] as string, c.known), m[2] as string, c, 'swap'),
  ],
  [
    new RegExp(`^(\\d+(?:\\.\\d+)? usd (?:worth )?(?:of|in) ${SOME_TOKEN})(?: (?:with|using|from) (${SOME_TOKEN}))?$`),
    (m, c) => buyOf(m[1] as string, m[2] ?? null, c),
  ],
  // "half my dai into weth", "10% of my weth to usdc": a share of a balance, then where it goes
  [
    new RegExp(`^(.+?) ${TO} (${SOME_TOKEN})$`),
    (m, c) => {
      const p = phraseOf(m[1] as string, c.known);
      return p && 'amount' in p && 'share' in p.amount ? swapOf(p, m[2] as string, c, 'swap') : null;
    },
  ],
];

const ACT = '(?:swap|exchange|trade|convert|buy|sell|send|transfer|pay|wrap|unwrap|get|spend)';
/** Two requests in one message ("swap 10 usdc for weth and 5 dai for weth"): one at a time, so neither is half-read. */
const TWO_AT_ONCE = new RegExp(`^${ACT} .+ (?:and|then|also|,|&) (?:then |also )?(?:${ACT} |\\d+(?:\\.\\d+)? [a-z])`);

/** Two amounts offered as a choice or a range ("swap 10 or 20 usdc", "send 5-10 dai"): which one is asked, never picked. */
const AMOUNT_CHOICE = /(?<![\d.])(\d+(?:\.\d+)?)(?:(?: [a-z]+)? or(?: maybe| perhaps)? | to | ?[-–] ?)(\d+(?:\.\d+)?)(?![\d./])/;
const STARTS_ACTING = new RegExp(`^(?:${ACT}|${SWAP}|use|put|dump|purchase|grab)\\b`);

/** "i want change 10 usdc to weth", "you buy weth with 40 dai": the words in front of the verb ask nothing more. */
const LEAD_IN = new RegExp(
  `^(?:(?:i|we) (?:want|need|would like|'d like|wish|will)(?: to)?|you(?: can| could| should| must)?|(?:i|we) (?:am|are) going to|going to|want to|need to|pls|please|do) (?=(?:${ACT}|${SWAP}|use|put|purchase|grab|dump)\\b)`,
);
/** "would you mind wrapping 0.2 eth": the verb as a noun of doing, read as the verb. */
const DOING: Record<string, string> = {
  swapping: 'swap',
  wrapping: 'wrap',
  unwrapping: 'unwrap',
  buying: 'buy',
  selling: 'sell',
  sending: 'send',
  converting: 'convert',
  exchanging: 'exchange',
  trading: 'trade',
  transferring: 'transfer',
  purchasing: 'purchase',
};

function readForms(text: string, c: Ctx): Reading | null {
  for (const [re, read] of FORMS) {
    const m = re.exec(text);
    const r = m ? read(m, c) : null;
    if (r) return r;
  }
  return null;
}

export function readAction(typed: string, c: Ctx): Reading | null {
  // "sell all of my dai and get usdc" is one sale, not two requests
  const text = typed
    .replace(LEAD_IN, '')
    .replace(/^([a-z]+ing)\b/, (w: string) => DOING[w] ?? w)
    .replace(/ (?:and|&) (?:get|receive|take|have) (?:some |back )?([a-z][a-z0-9.]{1,15})$/, ' for $1');
  const choice = AMOUNT_CHOICE.exec(text);
  if (choice && STARTS_ACTING.test(text))
    return ask(`Which amount did you mean, ${choice[1]} or ${choice[2]}? Say the request again with just one.`);
  if (TWO_AT_ONCE.test(text) && !/ (?:and|&) (?:pay|paying) with /.test(text))
    return ask('That asks for more than one thing. Tell me one action at a time, like "swap 10 USDC for WETH", then the next.');
  const r = readForms(text, c);
  if (r && r.kind !== 'ask') return r;
  const tail = tailOf(text, c.known);
  // a question back may have read a time as a token ("some usdc for weth tomorrow": which token?):
  // a tail putting the request off is said instead, unless it holds an address (no time, whole or not)
  if (r && !(tail?.says === 'changes' && !/\b0x/.test(tail.tail))) return r;
  // read without the reason, it must be a whole request: a question back would be about words it never saw
  const read = tail ? readForms(tail.plain, c) : null;
  if (!(tail && read)) return r;
  // a request that would be asked about, put off or made conditional ("sell all my dai at the end of
  // the month"): what the tail does to it is said first, since answering the question would not make it one for now
  if (read.kind === 'ask') return tail.says === 'reason' ? null : tailed(read, tail);
  if (tail.says === 'reason') return read;
  return isAction(read) ? tailed(read, tail) : null;
}
