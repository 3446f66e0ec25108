// Reads a question about the wallet or the market: a balance ("how much eth do i have",
// "what's my usdc balance"), a price ("how much is 1 weth in dollars"), a token's safety
// ("is the scam token safe"), a pool's depth ("how liquid is weth/usdc"), the list of pools,
// every price ("how's the market"), what was said before ("recap") or done ("did my swap go
// through", "show me my history"); and, on its own
// (`readPolicyChange`), a request to change the spend policy. Null: not one of these. Works
// on normalized text.
import { tokenOf, type Vocabulary } from './amount-phrase';
import type { HistoryAction, Reading } from './reading';

// Any length: a name too long to be a token still reaches the tool, which says so.
const TOK = '(?:the |an? |1 )?([a-z][a-z0-9.]*)(?: tokens?| coins?)?';
const PAIR = '(?:the )?([a-z][a-z0-9.]*)(?:[-/ ]| and | vs | to )([a-z][a-z0-9.]*)(?: pair| pool| market)?';

type Rule = [RegExp, (m: RegExpExecArray, known: Vocabulary) => Reading | null];

const token = (w: string | undefined, known: Vocabulary) => {
  const t = w ? tokenOf(w, known) : null;
  return t && 'token' in t ? t.token : null;
};
/** A token question about a word that is no token we know is still that question (the tool says it does not know it). */
const anyToken = (w: string | undefined, known: Vocabulary) => {
  const t = w ? tokenOf(w, known) : null;
  if (!t && w && /^[a-z][a-z0-9.]*$/.test(w) && (w.length === 1 || w.length > 15)) return w;
  return t ? ('token' in t ? t.token : t.unknown) : null;
};

/** Words for an action, the kind each names (a transaction, an order or "it" names none in particular). */
const ACTION_WORDS = 'swap|trade|buy|purchase|sale|sell|order|send|transfer|payment|wrap|unwrap|withdrawal|withdraw|transaction|tx|action';
/** "my swap", "the last transfer", "it", "that": what "did … go through" asks after. */
const DONE_WHAT = `(?:(?:my|the|that|this|our)(?: last| latest| recent| previous| most recent)? (${ACTION_WORDS})|my last one|it|that|this|(?:my|the) (?:last|latest) one)`;
const actionOf = (w: string | undefined): HistoryAction | null => {
  switch (w) {
    case 'swap':
    case 'trade':
    case 'buy':
    case 'purchase':
    case 'sale':
    case 'sell':
      return 'swap';
    case 'send':
    case 'transfer':
    case 'payment':
      return 'send';
    case 'wrap':
    case 'unwrap':
      return w;
    case 'withdrawal':
    case 'withdraw':
      return 'withdraw';
    default:
      return null;
  }
};

const UNDO_REPLY =
  'An action in a block cannot be undone. To go back, make the opposite one (after a swap, swap what you got for what you spent); ask "did my swap go through" to see what it got. One still waiting for your approval is dropped with its Deny button (in the CLI, presence confirm <id> --deny).';

const GAS_PRICE_REPLY =
  "I can't read the network's gas price. Your wallet pays each action's fee in ETH: ask \"how much gas do I have\" to see how much it holds.";

const rules: Rule[] = [
  // gas is paid in ETH
  [
    /^(?:how much gas (?:do i have|have i got|is left|money do i have)|do i have (?:enough |any )?gas(?: money)?(?: left)?|(?:what(?:'s| is)|whats) my gas(?: balance)?)(?: left| now| right now)?$/,
    () => ({ kind: 'balance', token: 'eth' }),
  ],
  // the network's fee is not read (no chain call gives it to a chat): said so, not taken for a token named GAS
  [
    /^(?:(?:what(?:'s| is| are)|whats|hows|how(?:'s| is| are)) (?:the )?(?:current )?(?:gas|gas price|gas prices|gas fees?|network fees?|fees?|gwei)(?: (?:like|at|now|right now|today|on chain|on the chain))*|(?:how much|how high|how expensive) (?:is|are) (?:the )?(?:gas|gas fees?|network fees?|fees?)(?: (?:now|right now|today))?|(?:is )?gas (?:high|low|cheap|expensive)(?: (?:now|right now|today))?|gas price|gwei)$/,
    () => ({ kind: 'unsupported', reply: GAS_PRICE_REPLY }),
  ],
  // balances
  [
    new RegExp(
      `^how (?:much|many) ${TOK} (?:do i (?:have|hold|own|got)|have i got|is (?:in|on) my (?:wallet|account)|am i holding|i have|i got|i own|do we have|in my wallet)(?: left| now| right now| at the moment| today)?$`,
    ),
    (m, k) => ({ kind: 'balance', token: token(m[1], k) }),
  ],
  [
    new RegExp(
      `^(?:what(?:'s| is)|whats|show|check|tell|give|get|display|see)? ?(?:me )?my (?:current )?${TOK} (?:balance|holdings?|position|bag|stack)$`,
    ),
    (m, k) => ({ kind: 'balance', token: token(m[1], k) }),
  ],
  [
    new RegExp(`^(?:do|did) i (?:have|hold|own|still have) (?:any )?${TOK}(?: left)?$`),
    (m, k) => ({ kind: 'balance', token: token(m[1], k) }),
  ],
  [new RegExp(`^${TOK} balance$`), (m, k) => (token(m[1], k) ? { kind: 'balance', token: token(m[1], k) } : null)],
  [
    /^(?:what(?:'s| is)|whats|show|check|tell|give|get|display|see)? ?(?:me )?(?:my )?(?:current )?(?:balances?|holdings|wallet|portfolio|positions|bags|funds|assets|account)(?: balances?)?(?: look like)?$/,
    () => ({ kind: 'balance', token: null }),
  ],
  [
    /^(?:what do i (?:hold|have|own)|what does my (?:wallet|portfolio|account) look like|what am i holding|what have i got|what(?:'s| is) in my (?:wallet|account)|how much (?:money )?(?:do i have|have i got)|how much is my (?:wallet|portfolio|account) worth|what(?:'s| is) my (?:wallet|portfolio|account) worth|how rich am i|am i rich|what(?:'s| is) my net worth)(?: (?:right now|now|today|in total|in my wallet))?$/,
    () => ({ kind: 'balance', token: null }),
  ],
  // what holdings are worth: "my" makes it a balance, not a price
  [
    new RegExp(
      `^(?:(?:what(?:'s| is)|whats|how much (?:is|are))(?: all)? my ${TOK}(?: holdings?| balance| stack| bag| position)? (?:worth|valued at)|(?:the )?value of (?:all )?my ${TOK})(?: right now| now| today| in usd| in dollars)?$`,
    ),
    (m, k) => {
      const t = token(m[1] ?? m[2], k);
      return t ? { kind: 'balance', token: t } : null;
    },
  ],
  // the market as a whole: every listed token's price
  [
    /^(?:how(?:'s| is)|hows|how are) (?:the )?(?:market|markets|prices|crypto)(?: doing| looking| today| now| right now)*$|^(?:what are|whats|what(?:'s| is)) (?:the )?(?:prices|market)(?: like| doing| looking| today| now| right now)*$|^(?:(?:show|give|tell)(?: me)? )?(?:all |the |token )*(?:prices|price list|market (?:overview|update|summary|check))(?: today| now)?$/,
    () => ({ kind: 'prices' }),
  ],
  // token safety
  [
    new RegExp(
      `^(?:is|are) ${TOK} (?:safe|a scam|scam|legit|legitimate|a rug|a rugpull|a rug pull|trustworthy|risky|dangerous|a honeypot|honeypot|ok|okay|fine|sketchy|shady|sus)(?: to (?:buy|hold|trade|use|swap))?$`,
    ),
    (m, k) => (anyToken(m[1], k) ? { kind: 'safety', token: anyToken(m[1], k) as string } : null),
  ],
  [
    new RegExp(
      `^(?:can i trust|should i trust|how safe is|how risky is|is it safe to (?:buy|hold|trade|swap(?: for)?|use)|safety (?:of|check on|check for)|check (?:the )?safety of|check(?: token)?|rug ?check|audit|scan|vet) ${TOK}$`,
    ),
    (m, k) => (anyToken(m[1], k) ? { kind: 'safety', token: anyToken(m[1], k) as string } : null),
  ],
  [
    new RegExp(`^${TOK} (?:safe|safety|legit|a scam|scam)$`),
    (m, k) => (token(m[1], k) ? { kind: 'safety', token: token(m[1], k) as string } : null),
  ],
  // pool depth
  [
    new RegExp(
      `^(?:how (?:liquid|deep|big|large) is|how much liquidity (?:is there in|does|has|is in|in)|what(?:'s| is) the (?:liquidity|depth) (?:of|in|for)|(?:liquidity|depth) (?:of|in|for)|what(?:'s| is) in|show|check) ${PAIR}(?: have)?$`,
    ),
    (m, k) => pairOf(m[1], m[2], k),
  ],
  [new RegExp(`^${PAIR} (?:liquidity|depth|reserves)$`), (m, k) => pairOf(m[1], m[2], k)],
  // the tokens listed
  [
    /^(?:(?:what|which) (?:tokens|coins|assets|currencies)(?: (?:are there|are (?:listed|supported|available)|do you (?:know|have|support|list|see)|can you (?:see|use|handle|trade)|exist|(?:are|is) on (?:this|the) chain))?|(?:list|show)(?: me)?(?: the| all| your)? (?:tokens|coins|assets)|(?:tokens|coins)(?: list)?|what (?:do you|can you) (?:support|trade))$/,
    () => ({ kind: 'tokens' }),
  ],
  // pools
  [
    /^(?:what|which) (?:pools|markets|pairs)(?: (?:are there|do you (?:know|have|see)|can i (?:use|trade)|exist))?$|^(?:what|which)(?: tokens| coins)? can i (?:trade|swap|buy)$|^(?:list|show)(?: me)?(?: the| all)? (?:pools|markets|pairs)$|^(?:pools|markets)$/,
    () => ({ kind: 'pools' }),
  ],
  // the wallet's address (where to fund it), and the actions held for approval
  [
    /^(?:(?:what(?:'s| is)|whats|show|give|tell|get|send)(?: me)? )?(?:my|the|your|our) (?:wallet(?:'s)? |deposit |receiving |public |own )?address$|^(?:how|where) (?:do|can|should) (?:i|we) (?:fund|top up|deposit (?:into|to)|add (?:funds|money) to) (?:my |the |your |our )?(?:wallet|account|presence)$/,
    () => ({ kind: 'address' }),
  ],
  // "where do i send funds to top up", "how do i top it up": where money goes in is the wallet's address
  [
    /^(?:how|where) (?:do|can|should|would) (?:i|we) (?:(?:send|deposit|put|transfer) (?:the |some |my )?(?:funds|money|crypto|tokens|eth|usdc)(?: (?:to|in|into))?(?: (?:top (?:it |this |my wallet |the wallet )?up|fund (?:it|this|my wallet|the wallet)|add funds))?|top (?:it |this |my wallet |the wallet )?up|fund (?:it|this))$/,
    () => ({ kind: 'address' }),
  ],
  [
    /^(?:(?:what(?:'s| is| are)|whats|show|list|any|anything|are there|is there|do (?:i|we) have)(?: me)?(?: any)?(?: of)? )?(?:(?:my|the) )?(?:pending|held|waiting)(?: (?:approvals?|confirmations?|actions?|swaps?|trades?|transactions?|holds?))?$|^(?:what(?:'s| is)|is anything|is there anything|(?:do|have) (?:i|we) (?:have|got) anything|anything) (?:waiting|pending|held|on hold)(?: for (?:my )?(?:approval|confirmation|ok|sign ?off)| for (?:me|us) to (?:approve|confirm|ok|sign(?: off)?))?$|^(?:show|list|see|check)(?: me)?(?: my| the)? pending(?: stuff| things| items| ones| requests| txs| transactions)?$/,
    () => ({ kind: 'pending' }),
  ],
  // what was said before in this conversation (the thread's last turns, as the planner is shown them)
  [
    /^(?:(?:do you )?remember |can you (?:tell me |remind me )?|remind me )?(?:what (?:did|have|had) (?:i|we) (?:just |already )?(?:ask(?:ed)?|say|said|talk(?:ed)? about|discuss(?:ed)?)(?: (?:you|to you))?(?: (?:earlier|before|just now|last|so far|today|previously|a (?:minute|moment|while) ago))?|what (?:was|were) (?:my |our )?(?:last |previous |earlier )?(?:question|message|request|ask)s?(?: (?:to you|earlier|before))?|what (?:were|have) we (?:been )?(?:talking|chatting) about|what i (?:asked|said)(?: (?:you|earlier|before))*|(?:give me )?(?:a )?(?:recap|summary)(?: of (?:our|this|the) (?:chat|conversation))?)$/,
    () => ({ kind: 'recap' }),
  ],
  // undoing an action: nothing on chain is undone; the opposite action, or a hold denied, is what there is
  [
    new RegExp(
      `^(?:can you |could you |can i |please |pls )?(?:undo|reverse|revert|roll ?back|take back|unwind|cancel)(?: (?:it|that|this|(?:my|the|that|this)(?: last| latest| previous)? (?:${ACTION_WORDS})))(?: please| pls)?$|^(?:undo|reverse|revert|roll ?back|unwind)(?: please| pls)?$`,
    ),
    (m) => (/^(?:.* )?cancel (?:it|that|this)$/.test(m[0]) ? null : { kind: 'unsupported', reply: UNDO_REPLY }),
  ],
  // an exchange rate: "what's the weth/usdc rate", "eth to usdc rate", "exchange rate weth usdc" (the first token's price in the second)
  [
    /^(?:(?:what(?:'s| is)|whats|show|check|get|give)(?: me)? )?(?:the )?(?:current )?([a-z][a-z0-9.]*)(?:\/| to | in |-| vs | ?-> ?)([a-z][a-z0-9.]*) (?:exchange )?rate(?: now| today| right now)?$/,
    (m, k) => rateOf(m[1], m[2], k),
  ],
  [
    /^(?:(?:what(?:'s| is)|whats|show|check|get|give)(?: me)? )?(?:the )?(?:current )?(?:exchange )?rate (?:of |for |from |between )?([a-z][a-z0-9.]*)(?:\/| to | in | and |-| vs | ?-> ?| )([a-z][a-z0-9.]*)(?: now| today| right now)?$/,
    (m, k) => rateOf(m[1], m[2], k),
  ],
  // how the last action ended: "did my swap go through", "did it work", "what happened to my transfer"
  [
    new RegExp(
      `^(?:(?:did|has|have|was|is) ${DONE_WHAT} (?:go(?:ne)? through|went through|work(?:ed)?|succeed(?:ed)?|fail(?:ed)?|(?:get |been |gotten )?(?:executed|mined|confirmed|sent|done)|land(?:ed)?|complete(?:d)?|happen(?:ed)?|go ok|go okay|go well)|what(?:'s| is| has)? happen(?:ed|ing)? (?:to|with) ${DONE_WHAT}|(?:what(?:'s| is)|whats) the status of ${DONE_WHAT}|where(?:'s| is) ${DONE_WHAT})(?: yet| then| now)?$`,
    ),
    (m) => ({ kind: 'history', action: actionOf(m[1] ?? m[2] ?? m[3] ?? m[4]), latest: true }),
  ],
  // what was done: "show me my history", "my recent trades", "what did i do today"
  [
    new RegExp(
      `^(?:(?:show|list|give|get|see|check|view|tell)(?: me)? )?(?:my |our |the )?(?:recent |latest |last |past |previous )?(?:${ACTION_WORDS}|wallet|account|trading)? ?(?:history|activity|log)(?: today| so far)?$|^(?:(?:show|list|give|get|see|check|view)(?: me)? )?(?:my|our) (?:recent |latest |last |past |previous )(?:few )?(${ACTION_WORDS})s?$|^(?:show|list|view)(?: me)? (?:my|our|all my|all of my) (${ACTION_WORDS})s$|^what (?:did|have) (?:i|we) (?:do|done|trade|traded|swap|swapped|buy|bought|sell|sold|send|sent|transfer|transferred)(?: today| yesterday| recently| lately| so far| this week)?$|^what(?:'s| is| has)? (?:my |our )?(?:recent )?activity(?: been)?$`,
    ),
    (m) => ({ kind: 'history', action: actionOf(m[1] ?? m[2]) }),
  ],
  // the spend policy: what may be spent, and what is left today
  [
    /^(?:what(?:'s| is| are)|whats|show|check|tell|give|see)? ?(?:me )?(?:my |the |our )?(?:current )?(?:daily |spend(?:ing)? |trading )?(?:policy|limits?|caps?|allowance|budget)(?: (?:today|now|left|like))?$/,
    () => ({ kind: 'policy' }),
  ],
  // "what's left of my daily budget", "how much is left on my limit"
  [
    /^(?:what(?:'s| is)|whats|how much(?: is)?) (?:left|remaining) (?:of|in|on|from) (?:my |the |our )?(?:daily |spend(?:ing)? |trading )?(?:policy|limits?|caps?|allowance|budget)(?: today| for today)?$/,
    () => ({ kind: 'policy' }),
  ],
  [
    /^(?:how much (?:more |else )?(?:can|may|could|am|are) (?:i|we) (?:still )?(?:(?:allowed|permitted|able) to )?(?:spend|trade|swap|use)|how much (?:do (?:i|we) have |have (?:i|we) got |(?:i|we) have |is )?left(?: to spend)?|how much (?:have (?:i|we)|did (?:i|we)|(?:i|we)(?: have|'ve)?) spen[dt]|what (?:have|did) (?:i|we) spen[dt]|what(?:'s| is) (?:my |the )?(?:daily |per[- ](?:tx|transaction|trade|swap) )(?:cap|limit|max(?:imum)?))(?: today| per (?:day|trade|swap|transaction))?$/,
    () => ({ kind: 'policy' }),
  ],
  // prices ("how much is 1 eth in usdc": in another token, at its own price; "in usd" falls to the rules below)
  [
    new RegExp(`^(?:how much (?:is|are)|what(?:'s| is| are)|whats) (\\d+(?:\\.\\d+)?) ${TOK}(?: worth)? in ${TOK}$`),
    (m, k) => priceIn(m[2], m[1] ?? null, m[3], k),
  ],
  // "what would 3 weth get me in usdc", "how much would 2 weth fetch in dai"
  [
    new RegExp(
      `^(?:how much (?:is|are|does|do|would|will|could)|what(?:'s| is| are)|whats|what (?:would|does|do|will|could|can)) (\\d+(?:\\.\\d+)?) ${TOK} (?:be worth|get|fetch|buy|go for|sell for|trade for|swap for|convert to|be) (?:me |us )?in ${TOK}(?: right now| now| today)?$`,
    ),
    (m, k) => priceIn(m[2], m[1] ?? null, m[3], k),
  ],
  [
    new RegExp(`^how much (?:usd |dollars |money |cash )?(?:would|will|do|can|could|should) (?:i|we) get for (\\d+(?:\\.\\d+)?) ${TOK}$`),
    (m, k) => priceOf(m[2], m[1] ?? null, k),
  ],
  // "is eth up or down today", "is weth pumping": how its price stands, asked of a token we know
  [
    new RegExp(
      `^(?:is|has) ${TOK} (?:up|down|pumping|dumping|mooning|crashing|dipping|going up|going down|moving|doing)(?: or (?:up|down))?(?: today| this week| lately)?$`,
    ),
    (m, k) => (token(m[1], k) ? priceOf(m[1], null, k) : null),
  ],
  // prices
  [
    new RegExp(
      `^(?:how much (?:is|are|does|do|would)|what(?:'s| is| are)|whats|what (?:would|does|do|will|did)) (\\d+(?:\\.\\d+)?) ${TOK}(?: be)?(?: (?:worth|cost|go for|fetch|sell for|get me))?(?: in usd| in dollars| in usdc)?(?: right now| now| today)?$`,
    ),
    (m, k) => priceOf(m[2], m[1] ?? null, k),
  ],
  [
    new RegExp(
      `^(?:(how much (?:is|are|does|do))|what(?:'s| is)|whats|what are)(?: the)?(?: current)?( price of| value of| going rate for| rate for)? ${TOK}((?: worth| trading at| at| going for| cost| costing| priced at| in usd| in dollars| price| selling for)*)(?: right now| now| today)?$`,
    ),
    // "what is X" alone is any question; it asks a price only of a token we know
    (m, k) => (m[1] || m[2] || m[4] ? priceOf(m[3], null, k) : token(m[3], k) ? priceOf(m[3], null, k) : null),
  ],
  [
    new RegExp(`^(?:(?:the )?(?:current )?(?:price|value) of|price (?:for|check on|check)) ${TOK}(?: now| today)?$`),
    (m, k) => priceOf(m[1], null, k),
  ],
  [new RegExp(`^${TOK} (?:price|value|in usd|usd|price now|price today|price check)$`), (m, k) => priceOf(m[1], null, k)],
  // "where is weth trading today", "where's eth at": where its price stands, asked of a token we know
  [
    new RegExp(
      `^(?:where(?:'s| is)|wheres|where are) ${TOK} (?:trading|at|sitting|priced|trading at|sitting at|priced at)(?: right now| now| today)?$`,
    ),
    (m, k) => (token(m[1], k) ? priceOf(m[1], null, k) : null),
  ],
  [new RegExp(`^(?:value|worth) of (\\d+(?:\\.\\d+)?) ${TOK}$`), (m, k) => priceOf(m[2], m[1] ?? null, k)],
  // a price asked in another token ("how much dai is 1 weth", "the weth price in dai")
  [
    new RegExp(`^how (?:much|many) ${TOK} (?:is|are|for|per|equals|=|would i get for|do i get for) (\\d+(?:\\.\\d+)? |an? |one )?${TOK}$`),
    (m, k) => priceIn(m[3], m[2] ? (/^\d/.test(m[2]) ? m[2].trim() : '1') : null, m[1], k),
  ],
  [new RegExp(`^(?:what(?:'s| is) )?(?:the )?(?:current )?${TOK} (?:price|rate|value) in ${TOK}$`), (m, k) => priceIn(m[1], null, m[2], k)],
];

function priceOf(w: string | undefined, amount: string | null, known: Vocabulary): Reading | null {
  const t = anyToken(w, known);
  if (!t || /^(?:it|that|this|my|up|going|new|happening|wrong)$/.test(t)) return null;
  return { kind: 'price', token: t, amount };
}

/** A price in another known token ("in DAI"); USD itself is no token to convert to. */
function priceIn(w: string | undefined, amount: string | null, other: string | undefined, known: Vocabulary): Reading | null {
  const r = priceOf(w, amount, known);
  const into = token(other, known);
  return r?.kind === 'price' && into && into !== r.token ? { ...r, in: into } : null;
}

/** A rate of one token in another: its price in it (in dollars when the other is the dollar). */
const rateOf = (a: string | undefined, b: string | undefined, known: Vocabulary): Reading | null =>
  /^(?:usd|dollars?|\$)$/.test(b ?? '') ? priceOf(a, null, known) : priceIn(a, null, b, known);

function pairOf(a: string | undefined, b: string | undefined, known: Vocabulary): Reading | null {
  const x = anyToken(a, known);
  const y = anyToken(b, known);
  return x && y ? { kind: 'pool', pair: poolPair(x, y) } : null;
}

/** A pool's name from two token words, in the order typed: ETH trades in pools as WETH. */
export const poolPair = (a: string, b: string) => `${(a === 'eth' ? 'weth' : a).toUpperCase()}-${(b === 'eth' ? 'weth' : b).toUpperCase()}`;

export function readQuestion(text: string, known: Vocabulary): Reading | null {
  for (const [re, build] of rules) {
    const m = re.exec(text);
    if (m) {
      const r = build(m, known);
      if (r) return r;
    }
  }
  return null;
}

// A change to the spend policy is never made from a chat, so it is said where it is made. Read
// before anything else: "turn off the daily cap" is no daily report to stop, and "how do i
// change my limits" no question about trading.
const POLICY_CHANGE =
  /^(?:(?:can|could|would|will) you |please |pls |(?:i )?(?:want|need|wanna|would like|'d like|d like) to |let me |let's |lets |how (?:do|can|could|would) (?:i|we) |is it possible to |i'd like you to |go )*(?:set|change|raise|lower|increase|decrease|update|adjust|bump|lift|up|reduce|cut|edit|modify|remove|drop|turn off|disable|relax|loosen|tighten|double|halve|unlock|lock)(?: up| down)? (?:my |the |our |your )?(?:spend(?:ing)? |daily |per[- ]?(?:tx|transaction|trade|swap|action) |trading |approval |confirm(?:ation)? )*(?:policy|limits?|caps?|allowance|budget|threshold)\b.*$/;

/** A request to change the spend policy, or null. Works on normalized text. */
export const readPolicyChange = (text: string): Reading | null => (POLICY_CHANGE.test(text) ? { kind: 'policy', change: true } : null);
