// What the presence says, where more than one place says it: in a turn (either planner), when
// a standing intent fires, when a held action is resolved, when a turn is refused. One
// builder per sentence, so the same fact always reaches the user in the same words.

import { type IntentResult, readableAmounts, readableSummary, readableUsd, type Scope, type WalletView } from '@presence/protocol';
import type { TokenList } from '../chain/token-list';

/** Messages the presence offers as examples of what it understands. */
export const EXAMPLES = {
  depth: 'how deep is WETH-USDC',
  holdings: 'what do I hold',
  safety: 'is SCAM safe',
  swap: 'swap 20 USDC for WETH',
  watch: 'tell me when WETH is below 2500 USD',
  daily: 'every day at 09:00 tell me my balance',
  actOnPrice: 'if WETH drops below 2000 buy $50 of WETH',
} as const;

/** The three kinds of standing intent, each with its example. */
export const STANDING_FORMS = `I can watch prices ("${EXAMPLES.watch}"), report daily ("${EXAMPLES.daily}") or act on a price ("${EXAMPLES.actOnPrice}").`;

/** A 0x… typed where an address goes that is not one ("0xdead", 39 hex digits): said so, not the forms understood. */
export const notWholeAddress = (typed: string) =>
  `"${typed.slice(0, 50)}" is not a whole address: an address is 0x followed by 40 hex digits`;

/** "Transaction 0x… landed in block 12." */
export const landed = (tx: string | undefined, block: number | undefined) => `Transaction ${tx} landed in block ${block}.`;

/** Every decimal in a text rounded for people (six significant digits): "0.007311279878129051 WETH" → "0.00731128 WETH".
 * The one rounding every surface uses (@presence/protocol's `readableAmounts`). */
export const readable = readableAmounts;

/** "14:10 UTC" (or the date too when it is not today's). */
export function whenUtc(iso: string, now = Date.now()): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  const hm = t.toISOString().slice(11, 16);
  return t.toISOString().slice(0, 10) === new Date(now).toISOString().slice(0, 10)
    ? `${hm} UTC`
    : `${t.toISOString().slice(0, 10)} ${hm} UTC`;
}

/** An action the pipeline took, or held for approval: in words, with nothing to call over HTTP. */
export function actionOutcome(r: IntentResult): string {
  const what = readableSummary(r.summary, r.amount, r.value_usd && readableUsd(r.value_usd));
  return r.status === 'done'
    ? `Done: ${what}. ${landed(r.tx, r.block)}`
    : `That is above your confirmation threshold, so I have held it: ${what}. Approve or deny it before ${whenUtc(r.expires_at)}; if you don't answer, nothing happens.`;
}

/** "10 USDC (10.00 USD), 0.5 WETH (1,250.00 USD) — 1,260.00 USD in total at block 12": what is held, nothing at 0. */
export function holdings(v: Pick<WalletView, 'balances' | 'total_usd' | 'as_of_block'>): string {
  const lines = v.balances
    .filter((b) => !/^0 /.test(b.amount))
    .map((b) => `${readable(b.amount)}${b.value_usd ? ` (${readableUsd(b.value_usd)})` : ''}`);
  return `${lines.join(', ')} — ${readableUsd(v.total_usd)} in total at block ${v.as_of_block}`;
}

/** How to stop a standing intent, in words to say (there is no route to call from a chat). */
export function howToStop(text: string, id: string): string {
  const token = /^(?:tell me when|if) (\S+) /i.exec(text)?.[1];
  if (token) return `To stop, say "stop watching ${token.toUpperCase()}".`;
  if (/^every day/i.test(text)) return 'To stop, say "stop the daily report".';
  return `To stop, say "cancel ${id}".`;
}

/** A token the list does not have, with the ones it does. */
export const unknownToken = (symbol: string, list: TokenList) =>
  `I don't know the token "${symbol.slice(0, 40)}". Known: ETH, ${list.tokens.map((t) => t.symbol).join(', ')}.`;

/** A turn asked for something that needs scopes its key lacks. */
export function scopesMissing(missing: readonly Scope[]): string {
  const named = missing.length === 1 ? `the ${missing[0]} scope` : `the ${missing.slice(0, -1).join(', ')} and ${missing.at(-1)} scopes`;
  return `That needs ${named}, which this key does not have.`;
}

/**
 * A turn asked for an action, but its message did not allow acting. Said on every surface, so
 * it names how each allows it: a CLI user has no `allow_act` to set, only `--act`.
 */
export const ALLOW_ACT_NEEDED =
  'That acts on chain, and this message did not allow actions. Allow them and send it again: "Allow actions" in the extension, presence chat --act in the CLI, allow_act: true over the API (the key needs wallet:act).';
