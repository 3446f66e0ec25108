// Reads a standing intent from a sentence: a trigger (a price crossing, or a daily time in
// UTC) and what to do when it fires (speak, report the balance, or act through the intent
// pipeline). Returns null when the sentence is not a standing intent at all.
import { parseUnits } from '../chain/amounts';
import { parseIntent } from '../intents/intent-parser';
import type { StandingRecord } from '../store/documents';

export type StandingSpec = Pick<StandingRecord, 'trigger' | 'action'>;

const VERB = '(?:is|goes|drops|falls|gets|trades|rises|climbs|moves)';
const SIDE = '(below|under|above|over)';
const PRICE = String.raw`\$?(\d[\d,]*(?:\.\d+)?)(?: ?usd)?`;

const notify = new RegExp(`^(?:tell|notify|alert|ping|warn) me (?:when|if) (\\w+) ${VERB} ${SIDE} ${PRICE}$`, 'i');
const daily = /^every day at (\d{1,2}):(\d{2})(?: ?utc)?,? (?:tell|send|give|show) me my (?:balance|wallet|holdings)$/i;
const act = new RegExp(`^(?:if|when|once) (\\w+) ${VERB} ${SIDE} ${PRICE},? (?:then )?(.+)$`, 'i');

const op = (side: string) => (/below|under/i.test(side) ? ('below' as const) : ('above' as const));
const usd = (n: string) => parseUnits(n.replaceAll(',', ''), 18).toString();

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
    if (h > 23 || min > 59) return null;
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
