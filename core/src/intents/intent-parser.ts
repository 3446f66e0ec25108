// Reads a natural-language intent into a structured one. Deterministic and strict: anything
// it cannot read with certainty is intent_unresolved with the forms it does understand,
// because guessing with someone's money is worse than asking again.
import { MAX_AMOUNT_TEXT, withinMaxAmount } from '@presence/protocol';
import { PresenceError } from '../errors/presence-error';
import { notWholeAddress } from '../replies/replies';

export type ParsedIntent =
  | { kind: 'swap'; amount: string; tokenIn: string; tokenOut: string }
  | { kind: 'buy'; usd: string; token: string; payWith: string | null }
  | { kind: 'sell'; amount: string; token: string; for: string | null }
  | { kind: 'wrap'; amount: string }
  | { kind: 'unwrap'; amount: string }
  | { kind: 'send'; amount: string; token: string; to: string };

export const INTENT_FORMS = [
  'swap 50 USDC for WETH',
  'buy $20 of WETH',
  'sell 0.1 WETH',
  'wrap 0.1 ETH',
  'unwrap 0.1 WETH',
  'send 5 USDC to 0x…',
];

const NUM = String.raw`(\d[\d,]*(?:\.\d+)?)`;
const SYM = '([A-Za-z][A-Za-z0-9.]{0,15})';
const ADDR = '(0x[0-9a-fA-F]{40})';

const forms: [RegExp, (m: string[]) => ParsedIntent][] = [
  [
    new RegExp(`^(?:swap|exchange|trade|convert) ${NUM} ${SYM} (?:for|to|into) ${SYM}$`, 'i'),
    (m) => ({ kind: 'swap', amount: n(m[1]), tokenIn: m[2] as string, tokenOut: m[3] as string }),
  ],
  [
    new RegExp(`^buy \\$${NUM} (?:of |worth of )?${SYM}(?: (?:with|using) ${SYM})?$`, 'i'),
    (m) => ({ kind: 'buy', usd: n(m[1]), token: m[2] as string, payWith: m[3] ?? null }),
  ],
  [
    new RegExp(`^buy ${NUM} usd (?:of |worth of )?${SYM}(?: (?:with|using) ${SYM})?$`, 'i'),
    (m) => ({ kind: 'buy', usd: n(m[1]), token: m[2] as string, payWith: m[3] ?? null }),
  ],
  [
    new RegExp(`^sell ${NUM} ${SYM}(?: (?:for|to|into) ${SYM})?$`, 'i'),
    (m) => ({ kind: 'sell', amount: n(m[1]), token: m[2] as string, for: m[3] ?? null }),
  ],
  [new RegExp(`^wrap ${NUM}(?: eth)?$`, 'i'), (m) => ({ kind: 'wrap', amount: n(m[1]) })],
  [new RegExp(`^unwrap ${NUM}(?: w?eth)?$`, 'i'), (m) => ({ kind: 'unwrap', amount: n(m[1]) })],
  [
    new RegExp(`^(?:send|transfer|pay) ${NUM} ${SYM} to ${ADDR}$`, 'i'),
    (m) => ({ kind: 'send', amount: n(m[1]), token: m[2] as string, to: m[3] as string }),
  ],
];

function n(s: string | undefined): string {
  const t = (s ?? '').replaceAll(',', '');
  if (!/^\d+(\.\d+)?$/.test(t)) throw unresolved(`"${s}" is not a number I can use`);
  // Bounded like every amount, so a quote or a transaction never gets a number the chain cannot encode.
  if (!withinMaxAmount(t)) throw unresolved(`${t.slice(0, 40)} is more than I act on: an amount is at most ${MAX_AMOUNT_TEXT}`);
  return t;
}

export const unresolved = (detail: string) => new PresenceError('intent_unresolved', detail);

export function parseIntent(text: string): ParsedIntent {
  const clean = text
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/^(please |could you |can you |i want to |i'd like to )+/i, '')
    .replace(/[.!]+$/, '');
  for (const [re, build] of forms) {
    const m = re.exec(clean);
    if (m) return build([...m]);
  }
  // A send in the right form to a 0x… that is not an address: say so, not the list of forms.
  const to = new RegExp(`^(?:send|transfer|pay) ${NUM} ${SYM} to (0x\\S*)$`, 'i').exec(clean)?.[3];
  if (to) throw unresolved(notWholeAddress(to));
  throw unresolved(`I could not read "${text.slice(0, 200)}" as an action. I understand: ${INTENT_FORMS.join('; ')}.`);
}
