// Reads a question by what it is about rather than how it is worded, when no worded form
// matched: the wallet ("could you tell me what is in my wallet"), a token's price ("how much
// 3 weth is worth"), its safety ("check whether the scam token is safe"), a pool ("usdc-dai
// pool stats") or the list of pools ("which markets are available for trading"). Only reads,
// never an action: a message with a verb of acting in it is left to the action reader, and a
// topic needs both its word and the tokens it is about, so small talk stays small talk.
import type { Vocabulary } from './amount-phrase';
import { poolPair } from './read-question';
import type { Reading } from './reading';

const POOLS = /\b(?:pools|markets|pairs)\b/;
const POOL = /\b(?:pool|liquidity|liquid|depth|deep|reserves|tvl)\b/;
const SAFETY = /\b(?:safe|safety|scam|rug|rugpull|legit|legitimate|honeypot|trust|trustworthy|risky|sketchy|shady|dangerous)\b/;
const WALLET =
  /\b(?:balances?|holdings|portfolio|wallet|funds|bags?|stack|net worth|assets|exposure|positions?|stake|allocation)\b|\bmy (?:coins|tokens|crypto|money)\b/;
const HOLDING = /\b(?:how (?:much|many)|what) .*\b(?:have|hold|own|got|holding)\b/;
const PRICE =
  /\b(?:price|prices|worth|cost|costs|value|trading at|going for|rate)\b|^how much (?:usd|dollars?|money)\b|^what'?s? [a-z]+ at$/;
const ACTING = /\b(?:swap|exchange|convert|buy|sell|send|transfer|pay|wrap|unwrap|spend|purchase)\b/;

/** The known tokens named, in the order typed; an amount right before the first is kept. */
function tokensIn(t: string, known: Vocabulary): { tokens: string[]; amount: string | null } {
  const words = t.split(/[\s/-]+/);
  const tokens: string[] = [];
  let amount: string | null = null;
  words.forEach((w, i) => {
    if (!known.has(w)) return;
    // "is usdc a scam": the word names the verdict, not a second token
    if (w === 'scam' && words[i - 1] === 'a' && tokens.length > 0) return;
    if (tokens.length === 0 && /^\d+(?:\.\d+)?$/.test(words[i - 1] ?? '')) amount = words[i - 1] as string;
    tokens.push(w);
  });
  return { tokens, amount };
}

/** A question or a request to show, or a few words ("usdc-dai pool stats"); not a statement ("I would like more WETH in my wallet"). */
const ASKS =
  /^(?:what|what's|how|how's|which|is|are|do|does|did|can|could|show|check|tell|give|list|any|where|see|display|get|provide|perform|run|pull up|fetch|report|privately|quick|info|information|details|stats|data|about|price|prices|value)\b/;

export function readTopic(t: string, known: Vocabulary, asked = false): Reading | null {
  if (!asked && !ASKS.test(t) && t.split(' ').length > 4) return null;
  const { tokens, amount } = tokensIn(t, known);
  if (POOLS.test(t) && tokens.length === 0) return { kind: 'pools' };
  if (ACTING.test(t)) return null;
  if (POOL.test(t) && tokens.length === 2) return { kind: 'pool', pair: poolPair(tokens[0] as string, tokens[1] as string) };
  if (tokens.length > 1) return null;
  const token = tokens[0] ?? null;
  // a token's name alone, asked ("eth?"): its price, as in a chat about prices
  if (asked && token && t === token) return { kind: 'price', token, amount: null };
  if (SAFETY.test(t.replace(/\bscam token\b/, 'token')) && token) return { kind: 'safety', token };
  if (token === 'scam' && /\b(?:safe|legit|rug|trust|risky|honeypot)\b/.test(t)) return { kind: 'safety', token };
  if (WALLET.test(t) || HOLDING.test(t)) return { kind: 'balance', token };
  if (PRICE.test(t) && token) return { kind: 'price', token, amount };
  return null;
}
