// Reads a standing intent from a sentence: a trigger (a price crossing, or a daily time in
// UTC) and what to do when it fires (speak, report the balance, or act through the intent
// pipeline). Returns null when the sentence is not a standing intent at all; one that is,
// but asks for something impossible (a price of 0 or of more than any token is worth, a time
// that is no time of day, an action it cannot read), is an invalid_request or
// intent_unresolved whose detail can be said to the user as it is.
import { parseUnits, USD_DECIMALS } from '../chain/amounts';
import { invalidRequest, PresenceError } from '../errors/presence-error';
import { parseIntent } from '../intents/intent-parser';
import type { StandingRecord } from '../store/documents';

export type StandingSpec = Pick<StandingRecord, 'trigger' | 'action'>;

/** The highest price line we watch: far above any token's price, far below what overflows a sane comparison. */
export const MAX_THRESHOLD_USD = 1_000_000_000_000n;

const VERB = '(?:is|goes|drops|falls|gets|trades|rises|climbs|moves)';
const SIDE = '(below|under|above|over)';
// Thousands separators only in groups of three: "1,2,3,4" is not a price.
const PRICE = String.raw`\$?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?: ?usd)?`;

const ASK = '(?:tell|notify|alert|ping|warn) me (?:when|if)';
const DAILY = 'every day at';
const WHEN = '(?:if|when|once)';

const notify = new RegExp(`^${ASK} (\\w+) ${VERB} ${SIDE} ${PRICE}$`, 'i');
const daily = new RegExp(`^${DAILY} (\\d{1,2}):(\\d{2})(?: ?utc)?,? (?:tell|send|give|show) me my (?:balance|wallet|holdings)$`, 'i');
const act = new RegExp(`^${WHEN} (\\w+) ${VERB} ${SIDE} ${PRICE},? (?:then )?(.+)$`, 'i');

/** How a standing intent begins: a message that opens so is meant as one, even when the rest cannot be read. */
export const STANDING_OPENING = new RegExp(`^(?:${ASK} |${DAILY} |${WHEN} \\w+ ${VERB} )`, 'i');

const op = (side: string) => (/below|under/i.test(side) ? ('below' as const) : ('above' as const));

function usd(n: string): string {
  const text = n.replaceAll(',', '');
  let v: bigint;
  try {
    v = parseUnits(text, USD_DECIMALS);
  } catch (e) {
    if (e instanceof PresenceError && e.type === 'invalid_request')
      throw invalidRequest(`a price can have at most ${USD_DECIMALS} decimal places`);
    throw e;
  }
  if (v === 0n) throw invalidRequest('a price to watch must be more than 0 USD');
  if (v > MAX_THRESHOLD_USD * 10n ** BigInt(USD_DECIMALS))
    throw invalidRequest(`a price to watch can be at most ${MAX_THRESHOLD_USD.toLocaleString('en-US')} USD`);
  return v.toString();
}

export function parseStanding(text: string): StandingSpec | null {
  const t = text
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[.!]+$/, '');
  let m = notify.exec(t);
  if (m)
    return {
      trigger: { kind: 'price', token: (m[1] as string).toUpperCase(), op: op(m[2] as string), threshold_usd: usd(m[3] as string) },
      action: { kind: 'notify' },
    };
  m = daily.exec(t);
  if (m) {
    const h = Number(m[1]);
    const min = Number(m[2]);
    if (h > 23 || min > 59) throw invalidRequest(`${m[1]}:${m[2]} is not a time of day: give one from 00:00 to 23:59 (UTC)`);
    return { trigger: { kind: 'daily', at: `${String(h).padStart(2, '0')}:${m[2]}` }, action: { kind: 'balance' } };
  }
  m = act.exec(t);
  if (m) {
    const intent = (m[4] as string).trim();
    parseIntent(intent); // throws intent_unresolved with the forms it knows
    return {
      trigger: { kind: 'price', token: (m[1] as string).toUpperCase(), op: op(m[2] as string), threshold_usd: usd(m[3] as string) },
      action: { kind: 'act', intent },
    };
  }
  return null;
}
