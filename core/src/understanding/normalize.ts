// A message as the readers see it: lower case, numbers in digits, dollar amounts as
// "<n> usd", token names as their symbols in lower case ("wrapped ether" → "weth"), arrows
// as "to", and the politeness and filler around a request taken off ("hey presence, could
// you please … for me? thx"). Addresses keep their letter case (it carries their checksum):
// they stand in the text as "addr0", "addr1" … and come back out by index; so do standing
// intent ids.
import { numbersAsDigits } from './number-words';

export type Normalized = {
  /** The words to read. */
  text: string;
  /** Addresses in the order they appear, as typed. */
  addresses: string[];
  /** Standing intent ids ("st_…", letter case kept), as "standing0", "standing1" … in the text. */
  ids: string[];
  /** The message ended with a question mark. */
  asked: boolean;
  /** Numbers typed with a grouping another locale reads differently ("1,500", "1 000"), as typed. */
  unsure: string[];
  /** Laughter typed anywhere ("lol", "haha"): filler around a question, but a request to act beside it may be a joke. */
  laughed: string | null;
};

const TOKEN_NAMES: [RegExp, string][] = [
  [/\bwrapped (?:ether(?:eum)?|eth)\b/g, 'weth'],
  [/\b(?:regular|normal|plain|native|real|unwrapped) (?=ether|eth\b)/g, ''],
  [/\b(?:ether(?:eum)?|ethers)\b/g, 'eth'],
  [/\busd ?coins?\b/g, 'usdc'],
  [/\btether\b/g, 'usdt'],
  [/\bdai stablecoins?\b/g, 'dai'],
];

/** Chat shorthand, as whole words: what each stands for. */
const SHORTHAND: [RegExp, string][] = [
  [/\bw\/ ?/g, 'with '],
  [/\bw\b(?= [a-z])/g, 'with'],
  [/\bbals?\b/g, 'balance'],
  [/\bliq\b/g, 'liquidity'],
  [/\bpx\b/g, 'price'],
  [/\blmk\b/g, 'let me know'],
  [/\b(?:wats|wuts|wots)\b/g, "what's"],
  [/\b(?:wat|wut|wot)\b/g, 'what'],
  // Words that change nothing about what is asked, wherever they stand.
  [/\b(?:rn|atm|at the moment|currently|right now|now|kindly|quickly|real quick|please|plz|pls|plse)\b/g, ''],
  [/\b(look|go|do|watch|track|keep|check)in'?(?=\s|$)/g, '$1ing'],
  [/\bmsgs?\b/g, 'message'],
  [/\bya\b/g, 'you'],
  [/\bgimme\b/g, 'give me'],
  [/\blil\b/g, 'little'],
  // trading and regional idiom for the plain verbs
  [/\bmarket (?=buy|sell|swap)/g, ''],
  // … but "move 5 usdc to 0x…" pays the address (a send reads "move" itself)
  [/\b(?:rotate|flip|shift|move) (?=(?!.*\baddr\d).* (?:into|to|for) )/g, 'swap '],
  [/\b(?:trim|close out|close|exit|unload) (?=.* (?:into|to|for) )/g, 'sell '],
  [/\brevert (?:back )?(?:to me )?with\b/g, 'tell me'],
  [/\b(?:and )?do the needful\b/g, ''],
  [/\bdo one thing\b/g, ''],
  [/\b(?:cop|snag|scoop|nab)\b/g, 'buy'],
  [/\bload up on\b/g, 'buy'],
  [/\b(\d+) ?(?:mins?)\b/g, '$1 minutes'],
  [/\b(\d+) ?(?:hrs?)\b/g, '$1 hours'],
  // "execute a swap of 0.15 weth into usdc", "make a purchase of …": the noun is the verb
  [/\b(?:execute|do|make|perform|place|process|initiate|submit)(?: for me)? an? (?:swap|trade|exchange|conversion) (?:of )?/g, 'swap '],
  [/\b(?:execute|do|make|perform|place|process|initiate|submit) an? (?:sale|sell order) (?:of )?/g, 'sell '],
  [/\b(?:execute|do|make|perform|place|process|initiate|submit) an? (?:purchase|buy order) (?:of )?/g, 'buy '],
  // times typed short: a request for later is never read as one for now
  [/\b(?:tmrw?|tmrow|tmw|tmoz|tomoz|tomo|2moro+w?|2morrow|2mrw|tomm?or+ow?|tomorow)\b/g, 'tomorrow'],
  [/\b(?:l8r|l8er|ltr|lata|laterz)\b/g, 'later'],
  [/\b(?:tonite|2nite|2night|tnite)\b/g, 'tonight'],
  [/\b(?:wknd|wkend)\b/g, 'weekend'],
  [/\bnxt\b/g, 'next'],
  [/\bwanna\b/g, 'want to'],
  [/\bgonna\b/g, 'going to'],
  [/\bthx\b|\bty\b/g, 'thanks'],
];

/** Laughter, as typed in chats. */
const LAUGH = '(?:lo+l+z?|lmf?ao+|rofl|lulz?|ha(?:ha)+h?|hah|he(?:he)+|xd+)';
const LAUGHED = new RegExp(String.raw`\b${LAUGH}\b`);
/**
 * Laughter typed as emoji (tears of joy, rolling on the floor, grinning squint, sweat smile, cat
 * with tears, skull for "I'm dead"; and the playful ones, zany, winking or squinting with the
 * tongue out, upside-down: they say what "jk" says), stripped with the other emoji, but beside
 * a request to spend it says what "lol" says, so it is kept aside as the laughter of the message.
 */
const LAUGHED_EMOJI = /😂|🤣|😆|😅|😹|💀|🤪|😜|😝|🙃/u;
const GREETING = `(?:${LAUGH}|he+y+|hi+|hiya|hel+o+|ugh|meh|argh|sigh|ahh*|oof|g'?day|howdy|greetings|yo|ok|okay|so|um+|uh+|hmm+|alright|right|oh|well|fine|cool|great|sure|but|(?:good )?(?:morning|afternoon|evening|day)|(?:hi|hello|hey) again|dear)`;
// "just kidding" is not "just" in front of "kidding": it says the request is a joke
const POLITE = String.raw`(?:just(?! (?:kidding|joking)\b)|quick|also|then|and|but|so)`;
const ASKING = String.raw`(?:(?:i |do you )?reckon you (?:could|can|would)|i don'?t suppose you (?:could|would|can)|(?:could|would|can) you possibly|would you mind(?: awfully| terribly| very much)?|be a (?:love|dear|star|sweetheart|doll|gem) and|do(?= (?:let|tell|sell|buy|swap|send|wrap|unwrap|convert|exchange|give|ping|notify|keep|inform))|(?:could|can|would|will|wud|cud) (?:you|u|ya)(?: just)?|(?:can|could) we|(?:do you |would you )?mind(?= [a-z]+ing\b)|(?:would|could) you (?:be so kind as to|mind|be able to)|be so kind as to|(?:i was wondering|i wonder) if you could|i'?d be (?:grateful|glad|happy) if you (?:could|would)|would it be possible to|you (?:can|could|may|should)|(?:i|id|i'd) (?:would |quite |really )?(?:like|love|want|need|wanna) (?:you )?to|i wanna|i need (?:you )?to|i want (?:you )?to|let'?s|go ahead and|help me|do me a favou?r and|be a dear and|time to|execute|proceed to)`;
const TRAILING = `(?:(?:and |& )?(?:thanks|thank you|many thanks)(?: so much| a lot| in advance| ever so much| dear| very much)?|tks|cheers|for me|for us|asap|if you can|if possible|if you could|if you don'?t mind|mate|buddy|bro|bruh|fam|dude|man|friend|dear|darling|love|hun|honey|ok|okay|when you can|sir|madam|kthx|kthxbye|${LAUGH}|ngl|fr|tbh|pronto|na|yaar|ji|ta|innit|would you|could you|will you|if that'?s (?:alright|ok|okay|fine)|if that is (?:alright|ok|okay|fine)|if you would|if you please|there'?s a good (?:chap|lad|girl|fellow)|at (?:the )?market(?: price| rate)?|at (?:the )?current (?:price|rate)|much appreciated|appreciate it)`;

/** Takes the filler off both ends, repeatedly ("hey, could you please … for me please thx"). */
function trimFiller(t: string, name: string): string {
  const names = name ? `@?${escaped(name)}|@?presence` : '@?presence';
  const called = `(?: (?:${names}|mate|guys|folks|team|bud|buddy|dude|man|bro|fam|there))?`;
  const head = new RegExp(`^(?:${GREETING}${called}(?: there)?[,!]? |${POLITE},? |${ASKING} |(?:${names}),? )`);
  const tail = new RegExp(`(?:,? ${TRAILING}|,? (?:${names}))$`);
  let prev = '';
  let out = t;
  while (prev !== out) {
    prev = out;
    out = out.replace(head, '').replace(tail, '').trim();
  }
  return out;
}

const escaped = (s: string) => s.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function normalize(typed: string, presenceName = ''): Normalized {
  const addresses: string[] = [];
  const ids: string[] = [];
  let t = typed
    .trim()
    .replace(/0x[0-9a-fA-F]{40}(?![0-9a-zA-Z])/g, (a) => ` addr${addresses.push(a) - 1} `)
    .replace(/\bst_[A-Za-z0-9]{1,40}\b/g, (id) => ` standing${ids.push(id) - 1} `)
    .replace(/[‘’`´]/g, "'")
    .replace(/[“”]/g, '"')
    // a thin, narrow or no-break space, or an apostrophe, between digit groups is a thousands mark only
    .replace(/(?<=\d)[\u00a0\u2009\u202f\u2007'](?=\d{3}(?!\d))/g, '')
    .replace(/\s*(?:->|=>|→|⇒|➡️?|➔|⟶|>>)\s*/g, ' to ')
    .replace(/\s*<=?\s*(?=\$?\d)/g, ' below ')
    .replace(/\s*>=?\s*(?=\$?\d)/g, ' above ')
    // "0.2 weth>usdc": between two words an arrow, as "->"
    .replace(/(?<=[A-Za-z])\s*>\s*(?=[A-Za-z])/g, ' to ')
    .toLowerCase();
  const emojiLaugh = LAUGHED_EMOJI.exec(t)?.[0] ?? null;
  const asked =
    /\?\s*[\p{Emoji_Presentation}\s!.)]*$/u.test(t) || /^(?:what|how|is|are|do|does|can i|should|which|who|where|when is|why)\b/.test(t);
  t = t
    // Emoji, quotes and stray punctuation are not words; keep what numbers, pairs and times use.
    .replace(/[^\p{L}\p{N}\s$%.,:'/\-@_]/gu, ' ')
    .replace(/\s+/g, ' ')
    .replace(/[.,!]+(\s|$)/g, '$1')
    .trim();
  t = t
    .replace(/\bwhats\b/g, "what's")
    .replace(/\bhows\b/g, "how's")
    .replace(/\b(do|does|did|is|are|was|ca|wo)nt\b/g, "$1n't")
    .replace(/\bu\b/g, 'you')
    .replace(/\bur\b/g, 'your')
    .replace(/\br\b/g, 'are');
  for (const [re, said] of SHORTHAND) t = t.replace(re, said);
  const unsure: string[] = [];
  t = numbersAsDigits(t, unsure);
  t = t
    .replace(/\$ ?(\d+(?:\.\d+)?)/g, '$1 usd')
    .replace(/(\d+(?:\.\d+)?) ?\$/g, '$1 usd')
    .replace(/(\d+(?:\.\d+)?) ?(?:us dollars?|dollars?|bucks?|usd)\b/g, '$1 usd')
    // "20usdc" → "20 usdc", but not a time ("09:00") or an ordinal-looking word
    // (nor a 0x… too short or too long to be an address: it is kept whole, to be said it is not one)
    .replace(/\b(\d+(?:\.\d+)?)([a-z]{2,})\b/g, (m, n: string, w: string) =>
      /^(?:st|nd|rd|th|am|pm)$/.test(w) || (n === '0' && w.startsWith('x')) ? m : `${n} ${w}`,
    )
    .replace(/(\d+(?:\.\d+)?) ?(?:percent|pct)\b/g, '$1%')
    .replace(/(\d) %/g, '$1%');
  for (const [re, symbol] of TOKEN_NAMES) t = t.replace(re, symbol);
  t = t
    .replace(/\b(get|buy|grab|give|fetch|find|show|pick) (?:me|us)\b/g, '$1')
    // "chuck 30 usdc into weth", "flick 1k usdc to 0x…": an amount thrown is a swap into a token, a send to an address
    .replace(/\b(?:ping|shoot|zap|bung|chuck|toss|flick|pop|throw|sling) (?=(?:\d[\d.]*|half|all|my|some|a|the)\b.* addr\d)/g, 'send ')
    .replace(/\b(?:ping|shoot|zap|bung|chuck|toss|flick|pop|throw|sling) (?=(?:\d[\d.]*|half|all|my)\b.* (?:into|in|to) )/g, 'swap ')
    // "ape into weth" buys it; "ape 100 usdc into weth" swaps; "ape $100 of weth" buys by value
    .replace(/\baped? into\b/g, 'buy')
    .replace(/\baped? (?=\d+(?:\.\d+)? usd\b)/g, 'buy ')
    .replace(/\bape\b/g, 'swap')
    .replace(/\baped\b/g, 'swapped')
    // "turn 0.2 weth back into eth", "use 20 usdc for buy weth"
    .replace(/ back (?=into|to)/g, ' ')
    // "sell off my weth", "swap out 10 dai for usdc", "send over 5 usdc to 0x…": the particle adds nothing
    .replace(/\b(sell|swap|trade|send|transfer|buy) (?:off|out|over|up) (?=(?:\d[\d.]*|half|all|my|some|a|the|every|everything)\b)/g, '$1 ')
    .replace(/\bfor (buy|get|purchase)\b/g, 'to $1')
    .replace(/\s+/g, ' ');
  const laughed = LAUGHED.exec(t)?.[0] ?? emojiLaugh;
  return { text: trimFiller(t.trim(), presenceName), addresses, ids, asked, unsure, laughed };
}
