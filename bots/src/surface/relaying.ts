// Relaying: text for the presence goes to POST /v1/messages with the user's key, one turn at
// a time per user in arrival order (the server keeps the same order), and the streamed reply
// is shown by editing one message. The user's message id is the turn's Idempotency-Key, so a
// platform that delivers it twice gets one turn.
//
// Acting: a relayed message carries allow_act exactly when the linked key holds wallet:act
// (the default for link codes). Whoever made the code chose the scopes, and the spend
// policy still holds anything over confirm_over for a tap on [Approve].
import { type ChatUser, type MessageRef, userKey } from './chat-port';
import type { SurfacePart } from './linked-users';
import { createPacer } from './pacer';
import { describeError, isRevoked, isUnavailable } from './problems';
import { NOT_LINKED } from './render';
import { createSerial } from './serial';
import { createStreamReply } from './stream-reply';

const MAX_ORIGINS = 500;
const TURN_IDLE_MS = 60_000;

export type Relaying = ReturnType<typeof createRelaying>;

export function createRelaying(
  o: SurfacePart<'clientFor' | 'revoked'> & {
    say(chatId: string, text: string): Promise<void>;
    /** Minimum time between edits in one chat. */
    editIntervalMs: number;
  },
) {
  const { port, store, users, log } = o;
  const pacer = createPacer(o.editIntervalMs);
  /** owner → the turn in flight: a hold raised during it is shown in its chat, after its reply. */
  const activeTurn = new Map<string, { chatId: string; done: Promise<void> }>();
  /**
   * owner|confirm id → chat whose turn raised it, for a needs_confirm event handled after the
   * turn. Keyed by owner too: other users linked to the account get the same event, and their
   * card goes to their own chat, not the one this turn ran in.
   */
  const origin = new Map<string, string>();
  /** One turn at a time per user, in arrival order. */
  const turns = createSerial<string>();

  async function relay(user: ChatUser, chatId: string, text: string, source?: MessageRef) {
    const owner = userKey(user);
    const link = store.get(owner);
    if (!link) return o.say(chatId, NOT_LINKED);
    return turns.run(owner, async () => {
      let finished = () => {};
      const turn = { chatId, done: new Promise<void>((resolve) => (finished = resolve)) };
      activeTurn.set(owner, turn);
      const reply = createStreamReply(port, chatId, pacer);
      let final: string | undefined;
      let failure: unknown = null;
      try {
        const stream = users.clientFor(owner).messages.send(
          { text, stream: true, allow_act: link.scopes.includes('wallet:act') },
          {
            // A stalled stream must not hold the user's queue (or a card waiting for this reply) for ever.
            idleTimeoutMs: TURN_IDLE_MS,
            idempotencyKey: source ? `${port.surface}:${source.chatId}:${source.messageId}` : undefined,
          },
        );
        for await (const ev of stream) {
          if (ev.type === 'token') reply.push(ev.text);
          else if (ev.type === 'needs_confirm') {
            origin.set(`${owner}|${ev.confirm_id}`, chatId);
            if (origin.size > MAX_ORIGINS) origin.delete(origin.keys().next().value as string);
          } else if (ev.type === 'done') final = ev.result.reply;
        }
      } catch (e) {
        failure = e;
      }
      try {
        if (failure === null) await reply.finish(final);
        else if (isRevoked(failure)) await users.revoked(owner, { chatId });
        else {
          if (!isUnavailable(failure)) log('warn', 'a relayed turn failed', { user: owner, error: String(failure) });
          await reply.fail(describeError(failure));
        }
      } catch (e) {
        log('warn', 'could not show a reply', { user: owner, error: String(e) });
      } finally {
        if (activeTurn.get(owner) === turn) activeTurn.delete(owner);
        finished();
      }
    });
  }

  return {
    relay,
    /**
     * Where a hold's card goes: the chat whose turn raised it, else the chat of the user's turn
     * in flight (undefined: neither); and that turn's end, which the card waits for so the
     * reply explaining the hold comes first.
     */
    holdPlace(owner: string, confirmId: string): { chatId: string | undefined; after: Promise<void> | undefined } {
      const turn = activeTurn.get(owner);
      const chatId = origin.get(`${owner}|${confirmId}`) ?? turn?.chatId;
      origin.delete(`${owner}|${confirmId}`);
      return { chatId, after: turn?.done };
    },
  };
}
