// Every text the bots show, in one place: help, link results, wallet, pending, confirmation
// cards and their outcomes. Plain text (no markup), so nothing needs escaping on either
// platform. Amounts (a summary's quote, a balance) are rounded for people with the one
// rounding every surface shares (`readableAmounts`); the wire keeps every digit.
import {
  type ConfirmationList,
  type RedeemLinkReturnType,
  readableAmounts,
  readableSummary,
  readableUsdIn,
  type WalletView,
} from '@presence/client';
import type { CardRecord, LinkRecord, Outcome } from './records';

export const COMMANDS = [
  { name: 'link', usage: '/link CODE', description: 'link this chat to your presence with a one-time code' },
  { name: 'unlink', usage: '/unlink', description: 'forget the link and its key here' },
  { name: 'wallet', usage: '/wallet', description: 'balances and the spend policy' },
  { name: 'pending', usage: '/pending', description: 'actions waiting for your approval' },
] as const;

const commandList = () => COMMANDS.map((c) => `${c.usage} — ${c.description}`).join('\n');

export function helpText(link: LinkRecord | undefined): string {
  const intro =
    "I'm the chat side of Presence: I pass what you write to your presence, bring back its replies, tell you when it has news, and show held actions with Approve / Deny buttons.";
  const state = link
    ? `This chat is linked to the account ${link.account} (key ${link.key_name}). Just write to talk to your presence.`
    : "To link this chat, make a one-time code where your presence runs (`presence link`, or the extension's options page) and send it here as /link CODE. No key is ever pasted into the chat.";
  return `${intro}\n\n${state}\n\n${commandList()}\nAnything else you write goes to your presence.`;
}

export const unknownCommandText = (name: string) =>
  `I don't know /${name}. I understand:\n${commandList()}\nAnything else you write goes to your presence.`;

export const NOT_LINKED = 'This chat is not linked to a presence yet. Make a one-time code (`presence link`) and send /link CODE.';
export const LINK_USAGE = 'Send the one-time code with the command: /link CODE (make one with `presence link`).';
export const LINK_IN_PRIVATE = 'For your privacy, link in a private chat with me: send /link CODE there.';
/** What became of a link code typed outside a private chat (see `burn` in surface.ts). */
export type SeenCodeOutcome = { kind: 'voided'; key_id: string; revoked: boolean } | { kind: 'gone' } | { kind: 'failed'; reason: string };

const PRIVATE_ONLY = 'For your privacy, link in a private chat with me.';
const MAKE_ANOTHER = 'Make a new code (`presence link`) and send /link CODE to me privately.';

/** The answer to a /link CODE in a group or server channel; `removed` says whether the message is gone. */
export function seenCodeText(outcome: SeenCodeOutcome, removed: boolean): string {
  const deleted = removed ? ' I deleted your message.' : '';
  switch (outcome.kind) {
    case 'voided': {
      const leftover = outcome.revoked
        ? ''
        : ` The key it made could not be revoked; an admin can run \`presence keys revoke ${outcome.key_id}\`.`;
      return `${PRIVATE_ONLY} That code was posted here, so I have voided it: nobody can use it now.${deleted}${leftover} ${MAKE_ANOTHER}`;
    }
    case 'gone':
      return `${PRIVATE_ONLY} That code is unknown, used or expired, so nobody can use it.${deleted} ${MAKE_ANOTHER}`;
    case 'failed':
      return `${PRIVATE_ONLY} I could not void that code (${outcome.reason.replace(/\.$/, '')}). ${
        removed ? 'I deleted your message, but anyone' : 'Please delete your message: anyone'
      } who saw the code could use it until it expires, so make a new one (\`presence link\`) and send /link CODE to me privately.`;
  }
}
export const GROUP_HINT = 'Mention me in a group to talk to your presence.';
export const TEXT_ONLY = 'I can only pass text to your presence for now.';
export const REVOKED =
  'Your link to Presence no longer works (its key was revoked or replaced), so I have unlinked you here. Make a new code and send /link CODE to link again.';

export const alreadyLinkedText = (link: LinkRecord) =>
  `You are already linked to the account ${link.account} (key ${link.key_name}). Send /unlink first to link again.`;

export const linkedText = (r: Pick<RedeemLinkReturnType, 'account' | 'name' | 'scopes'>) =>
  `Linked to the account ${r.account} as ${r.name} (scopes: ${r.scopes.join(', ')}). Write anything to talk to your presence; held actions will show up here with Approve / Deny buttons.${
    r.scopes.includes('wallet:act') ? '' : '\nThis link cannot act on the wallet, so actions you ask for are only explained.'
  }`;

export const unlinkedText = (link: LinkRecord, revoked: boolean) =>
  revoked
    ? `Unlinked. The key ${link.key_name} (id ${link.key_id}) is revoked and forgotten.`
    : `Unlinked. I forgot the key ${link.key_name} (id ${link.key_id}), but could not revoke it on the server; an admin can run \`presence keys revoke ${link.key_id}\`.`;

export function walletText(w: WalletView): string {
  const lines = [`Wallet ${w.address} on ${w.chain.name} (chain ${w.chain.id}), block ${w.as_of_block}`, `Total: ${w.total_usd}`];
  for (const b of w.balances) lines.push(`• ${readableAmounts(b.amount)}${b.value_usd ? ` — ${b.value_usd}` : ''}`);
  for (const p of w.lp) lines.push(`• LP ${p.pair}${p.value_usd ? ` — ${p.value_usd}` : ''}`);
  const p = w.policy;
  lines.push(
    `Spending: ${p.spend} · per action up to ${p.per_tx_cap} · asks above ${p.confirm_over} · ${p.left_today} left of ${p.daily_cap} today`,
  );
  if (w.pending_confirmations > 0) lines.push(`Waiting for your approval: ${w.pending_confirmations} (/pending)`);
  // USD figures as chat writes them ("65,000.00 USD"); token amounts stay as they would be typed.
  return readableUsdIn(lines.join('\n'));
}

export function pendingText(list: ConfirmationList, now: number): string {
  const held = list.confirmations;
  if (held.length === 0) return 'Nothing is waiting for your approval.';
  const lines = held.map(
    (c) => `• ${readableSummary(c.summary)} (${readableAmounts(c.amount)}) — ${timeLeft(Date.parse(c.expires_at) - now)} left`,
  );
  return `Waiting for your approval (${held.length}):\n${lines.join('\n')}`;
}

/** "9 min 59 s", "2 h 5 min", "0 s". */
export function timeLeft(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.floor(m / 60)} h`;
}

const hhmm = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : `${new Date(iso).toISOString().slice(11, 16)} UTC`);

type CardFacts = Pick<CardRecord, 'summary' | 'amount' | 'value_usd' | 'expires_at' | 'timeout_s' | 'approve_url'>;

/** Time left as the server counts it; the bot's clock is only trusted within the hold's own timeout. */
function leftMs(card: CardFacts, now: number): number {
  const left = Date.parse(card.expires_at) - now;
  const max = card.timeout_s === null ? Number.POSITIVE_INFINITY : card.timeout_s * 1000;
  return Number.isNaN(left) || left > max ? (card.timeout_s ?? 0) * 1000 : left;
}

/** Why a card's Approve is a link: said on the card itself. */
export const PASSKEY_NOTE = '🔑 This is over your passkey threshold: Approve opens a page where your device confirms it with a passkey.';

export function cardText(card: CardFacts, now: number, note?: string): string {
  const lines = [
    `Approval needed: ${readableSummary(card.summary)}`,
    `Amount: ${readableAmounts(card.amount)}${card.value_usd ? ` (≈ ${readableUsdIn(card.value_usd)})` : ''}`,
    `Time left: ${timeLeft(leftMs(card, now))} (until ${hhmm(card.expires_at)})`,
  ];
  if (card.approve_url && note !== PASSKEY_NOTE) lines.push('', PASSKEY_NOTE);
  if (note) lines.push('', note);
  return lines.join('\n');
}

// Stored with a card (records.ts holds its schema).
export type { Outcome } from './records';

export function outcomeText(card: Pick<CardRecord, 'summary' | 'amount'>, o: Outcome): string {
  const summary = readableSummary(card.summary);
  switch (o.status) {
    case 'executed':
      return `✅ Approved and executed: ${summary}${o.tx ? `\nTx ${o.tx}${o.block !== undefined ? ` in block ${o.block}` : ''}` : ''}`;
    case 'denied':
      return `❌ Denied: ${summary}. Nothing was sent.`;
    case 'expired':
      return `⌛ Expired: ${summary}. Nobody answered in time; nothing was sent.`;
    case 'failed':
      return `⚠️ Failed: ${summary}${o.reason ? ` (${o.reason})` : ''}.`;
    case 'answering':
      return `⏳ ${o.approve ? 'Approving' : 'Denying'}: ${summary}…`;
    case 'settled':
      return `☑️ Settled: ${summary}. Send /pending to see what is still waiting.`;
  }
}

export const policyBlockNote = (detail: string) =>
  `🚫 Blocked by policy: ${detail.replace(/\.$/, '')}. The request stays open until it expires.`;
