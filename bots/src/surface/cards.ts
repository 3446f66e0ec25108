// Confirmation cards: a held action shown with [Approve] [Deny], answered through the
// confirm endpoint with the owner's key, and edited to its outcome — by the press itself
// or by a `confirm` event from anywhere else (CLI, extension, timeout). A card's state moves
// open → answering → closed (or back to open when the answer did not settle it); the
// check-and-set happens synchronously, so a double press or a press racing an event acts once.
// The record keeps what a card that left open shows (its `outcome`): a copy whose send was
// still under way when the card was answered or settled is painted to match once it is sent.
import { type EventData, PresenceApiError, type PresenceClient } from '@presence/client';
import { withMessages } from './card-index';
import { type ChatButton, type ChatPort, type ChatUser, type MessageRef, userKey } from './chat-port';
import type { CardRecord, LinkStore } from './link-store';
import type { Log } from './logging';
import { describeError, isRevoked } from './problems';
import { cardText, type Outcome, outcomeText, PASSKEY_NOTE, policyBlockNote, REVOKED } from './render';
import { createSerial } from './serial';

export type CardFacts = Pick<CardRecord, 'confirm_id' | 'summary' | 'amount' | 'value_usd' | 'expires_at' | 'timeout_s' | 'approve_url'>;

/** What the adapter does with a button press: answer it at once with `toast`, then await `run`. */
export type PressAnswer = { toast: string; run?: () => Promise<void> };

/** What a card that is no longer open shows (a closed record kept before outcomes were: plainly settled). */
const settledText = (card: CardRecord) => outcomeText(card, card.outcome ?? { status: 'settled' });
const cardKey = (card: Pick<CardRecord, 'owner' | 'confirm_id'>) => `${card.owner}|${card.confirm_id}`;

const CALLBACK = /^cf:(cf_[0-9A-Za-z]{16}):([ad])$/;
/** [Approve] [Deny]; a hold over passkey_over gets Approve as a link to its page (the passkey confirms there), Deny stays a tap. */
export const buttonsFor = ({ confirm_id, approve_url }: Pick<CardFacts, 'confirm_id' | 'approve_url'>): ChatButton[] => [
  approve_url ? { label: 'Approve', url: approve_url, style: 'link' } : { label: 'Approve', data: `cf:${confirm_id}:a`, style: 'approve' },
  { label: 'Deny', data: `cf:${confirm_id}:d`, style: 'deny' },
];

export type Cards = ReturnType<typeof createCards>;

/** A table shared by several processes can fetch a card this process has not heard of yet. */
type CardSource = LinkStore & { loadCard?(owner: string, confirmId: string): Promise<CardRecord | undefined> };

export function createCards(o: {
  store: CardSource;
  port: ChatPort;
  clientFor(owner: string): PresenceClient;
  revoked(owner: string): Promise<void>;
  now: () => number;
  log: Log;
}) {
  const { store, port } = o;

  /**
   * Edits every copy of the card (or only `refs`); edits of one card run in the order they were
   * asked for. Keyed by the card, not by its record: a store may answer a new record per change.
   */
  const painting = createSerial<string>();
  function paint(card: CardRecord, text: string, withButtons: boolean, refs?: readonly MessageRef[]): Promise<void> {
    return painting.run(cardKey(card), async () => {
      for (const ref of refs ?? card.messages) {
        try {
          await port.edit(ref, text, withButtons ? buttonsFor(card) : undefined);
        } catch (e) {
          o.log('warn', 'could not edit a confirmation card', { confirm_id: card.confirm_id, error: String(e) });
        }
      }
    });
  }

  /** The record as this process knows it now (`card` may be a snapshot taken before a change). */
  const current = (card: CardRecord) => store.card(card.owner, card.confirm_id) ?? card;

  /** Painted once the change is recorded: its answer holds every copy, a late one's included. */
  async function close(card: CardRecord, outcome: Outcome) {
    if (current(card).state === 'closed') return;
    const after = await store.updateCard(card.owner, card.confirm_id, { state: 'closed', outcome });
    await paint(after ?? card, outcomeText(card, outcome), false);
  }

  /** Back to open (buttons shown again) when an answer did not settle the hold. */
  async function reopen(card: CardRecord, note: string) {
    if (current(card).state !== 'answering') return;
    const after = await store.updateCard(card.owner, card.confirm_id, { state: 'open', outcome: null });
    await paint(after ?? card, cardText(card, o.now(), note), true);
  }

  /**
   * A copy sent while the card left open (answered or settled during the send) loses its
   * buttons and shows the outcome. Painted "answering", it is looked at again after: the
   * answer may have ended meanwhile (settled, or back to open), its painter not yet knowing
   * this copy, so its last paint could have come before this one.
   */
  async function catchUp(card: CardRecord, ref: MessageRef) {
    await paint(card, settledText(card), false, [ref]);
    if (card.state !== 'answering') return;
    const now = (await store.loadCard?.(card.owner, card.confirm_id)) ?? store.card(card.owner, card.confirm_id);
    if (now?.state === 'closed') await paint(now, settledText(now), false, [ref]);
    else if (now?.state === 'open') await paint(now, cardText(now, o.now()), true, [ref]);
  }

  async function settledElsewhere(card: CardRecord, client: PresenceClient, fallback: unknown) {
    try {
      const found = await client.confirm.get(card.confirm_id);
      if (found.status === 'executed')
        return close(card, {
          status: 'executed',
          tx: found.tx || undefined,
          block: found.block ?? undefined,
        });
      if (found.status === 'denied' || found.status === 'expired' || found.status === 'failed')
        return close(card, { status: found.status });
    } catch {}
    return reopen(card, describeError(fallback));
  }

  async function answer(card: CardRecord, approve: boolean) {
    await paint(card, outcomeText(card, { status: 'answering', approve }), false);
    const client = o.clientFor(card.owner);
    try {
      const r = await client.confirm.answer(card.confirm_id, { approve });
      await close(card, r.status === 'executed' ? { status: 'executed', tx: r.tx, block: r.block } : { status: 'denied' });
    } catch (e) {
      if (isRevoked(e)) {
        await paint(card, cardText(card, o.now(), REVOKED), false);
        return o.revoked(card.owner);
      }
      const type = e instanceof PresenceApiError ? e.type : undefined;
      if (type === 'confirm_expired') return close(card, { status: 'expired' });
      if (type === 'confirm_resolved') return settledElsewhere(card, client, e);
      if (type === 'policy_block') return reopen(card, policyBlockNote((e as PresenceApiError).detail));
      if (type === 'passkey_required') {
        // The hold went over passkey_over since the card was shown (prices moved): its page is named.
        const url = (e as PresenceApiError).problem.approve_url;
        return reopen(card, `${PASSKEY_NOTE}${typeof url === 'string' ? `\n${url}` : ''}`);
      }
      if (type === 'not_found') return close(card, { status: 'failed', reason: 'Presence no longer knows this request' });
      o.log('warn', 'answering a confirmation failed', { confirm_id: card.confirm_id, error: String(e) });
      return reopen(card, describeError(e));
    }
  }

  /** Decides at once (no I/O) what a press means. */
  function decide(presser: ChatUser, data: string, at: MessageRef): PressAnswer {
    const m = CALLBACK.exec(data);
    if (!m) return { toast: 'This button is not one of mine.' };
    const [, confirmId, choice] = m as unknown as [string, string, 'a' | 'd'];
    const card = store.cardAt(at) ?? store.card(userKey(presser), confirmId);
    if (!card || card.confirm_id !== confirmId) return { toast: 'I no longer know this request. Send /pending to see what is waiting.' };
    if (card.owner !== userKey(presser)) {
      const name = store.get(card.owner)?.name;
      return { toast: `Sorry, only ${name ?? 'the person it was shown to'} can answer this request.` };
    }
    if (card.state === 'closed') return { toast: 'This request is already settled.' };
    if (card.state === 'answering') return { toast: 'Already on it…' };
    const approve = choice === 'a';
    const outcome: Outcome = { status: 'answering', approve };
    // The pressed message is a copy of the card even when this process has not yet heard which
    // messages it was sent in (another process sent it a moment ago): its outcome is shown there.
    const shown: CardRecord = { ...card, state: 'answering', outcome, messages: withMessages(card.messages, [at]) };
    const claimed = store.updateCard(card.owner, confirmId, { state: 'answering', outcome, messages: [at] });
    return {
      toast: approve ? 'Approving…' : 'Denying…',
      run: async () => {
        await claimed;
        await answer(shown, approve);
      },
    };
  }

  return {
    /** Shows a card for a hold once per owner; `again` (from /pending) shows it once more in `chatId`. */
    async show(owner: string, chatId: string, facts: CardFacts, { again = false } = {}) {
      const existing = store.card(owner, facts.confirm_id);
      // A record without messages is a send that failed: shown again as if new.
      if (existing && existing.messages.length > 0 && (!again || existing.state === 'closed')) return;
      // Recorded before it is sent: a press may come as soon as the message shows, and reach
      // another process, which then finds the card in the table.
      if (!existing) await store.putCard({ owner, ...facts, messages: [], state: 'open', outcome: null });
      const ref = await port.send(chatId, cardText(facts, o.now()), buttonsFor(facts));
      // Whoever changes the card after this sees the new copy; a change made during the send is caught up here.
      const after = await store.updateCard(owner, facts.confirm_id, { messages: [ref] });
      if (after && after.state !== 'open') await catchUp(after, ref);
    },

    /** A `confirm` event: the hold was settled somewhere; the card loses its buttons. */
    async retire(owner: string, data: EventData<'confirm'>) {
      const card = store.card(owner, data.confirm_id);
      if (!card) return;
      if (data.status === 'executed') {
        await close(card, {
          status: data.status,
          tx: data.tx,
          block: data.block,
        });
      } else if (data.status === 'failed') await close(card, { status: data.status, reason: data.reason });
      else await close(card, { status: data.status });
    },

    /**
     * What a press means; the slow part is in `run`. A card sent by another process moments
     * ago may not have reached this one's copy of the table yet: it is read from the table
     * then (one query, and only for a card this process does not know).
     */
    async press(presser: ChatUser, data: string, at: MessageRef): Promise<PressAnswer> {
      const id = CALLBACK.exec(data)?.[1];
      if (id && store.loadCard && !store.cardAt(at) && !store.card(userKey(presser), id)) await store.loadCard(userKey(presser), id);
      return decide(presser, data, at);
    },
  };
}
