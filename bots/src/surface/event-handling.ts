// What a user's Presence events become in the chat: a held action becomes a confirmation card
// (in the chat whose turn raised it, after that turn's reply), a settled one retires its card,
// and a message from the presence is said in the user's home chat. The feeds and the surface
// stream deliver the events; this decides what each one shows.
import type { PresenceEvent } from '@presence/client';
import type { Cards } from './cards';
import type { LinkStore } from './link-store';
import type { LinkedUsers } from './linked-users';
import type { Relaying } from './relaying';

export function createEventHandler(o: {
  store: LinkStore;
  users: Pick<LinkedUsers, 'homeChat'>;
  relaying: Pick<Relaying, 'holdPlace'>;
  cards: Pick<Cards, 'show' | 'retire'>;
  say(chatId: string, text: string): Promise<void>;
}) {
  const { store, users, relaying, cards, say } = o;
  return async function handleEvent(owner: string, event: PresenceEvent) {
    const link = store.get(owner);
    if (!link) return;
    if (event.type === 'needs_confirm') {
      const d = event.data;
      if (store.card(owner, d.confirm_id)) return;
      const place = relaying.holdPlace(owner, d.confirm_id);
      const chat = place.chatId ?? (await users.homeChat(owner, link));
      await place.after; // the reply that explains the hold comes first, then its card
      await cards.show(owner, chat, {
        confirm_id: d.confirm_id,
        summary: d.summary,
        amount: d.amount,
        value_usd: d.value_usd,
        expires_at: d.expires_at,
        timeout_s: d.timeout_s,
        approve_url: d.approve_url ?? null,
      });
    } else if (event.type === 'confirm') await cards.retire(owner, event.data);
    else if (event.type === 'message') await say(await users.homeChat(owner, link), event.data.text);
    // tx and memory events need no words: the turn or the card already said it.
  };
}
