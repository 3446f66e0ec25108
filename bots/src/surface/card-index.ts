// Which card a message shows, by chat and message id: a button press names its message, and
// finding its card must cost the same whether the table holds ten users or a million (cost
// follows work, never the number of accounts). Both stores keep one beside their cards and
// tell it every card they put, change or drop.
import { type MessageRef, sameMessage } from './chat-port';

type Shown = { messages: readonly MessageRef[] };

const messageKey = (ref: MessageRef) => `${ref.chatId}\u0000${ref.messageId}`;

export type CardIndex = ReturnType<typeof createCardIndex>;

/** Maps each message to the id (the store's key) of the card shown in it. */
export function createCardIndex() {
  const byMessage = new Map<string, string>();
  return {
    /** The id of the card shown in `ref`, if any. */
    at: (ref: MessageRef): string | undefined => byMessage.get(messageKey(ref)),
    /** The card `id` now shows in `next`'s messages (none when `next` is undefined: dropped); `prior` is what it was. */
    set(id: string, prior: Shown | undefined, next: Shown | undefined) {
      for (const m of prior?.messages ?? []) {
        const key = messageKey(m);
        if (byMessage.get(key) === id) byMessage.delete(key);
      }
      for (const m of next?.messages ?? []) byMessage.set(messageKey(m), id);
    },
    clear: () => byMessage.clear(),
    get size() {
      return byMessage.size;
    },
  };
}

/** `existing` with the messages of `added` it lacks, in order: a card's copies are only ever added. */
export const withMessages = (existing: readonly MessageRef[], added: readonly MessageRef[] = []): MessageRef[] => {
  const out = [...existing];
  for (const m of added) if (!out.some((e) => sameMessage(e, m))) out.push(m);
  return out;
};
