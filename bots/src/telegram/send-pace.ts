// Telegram's send limits, held before the call instead of learnt from a 429: about 30
// messages a second per bot, and one a second per chat. Every call that writes into a chat
// takes the next free slot of the bot (1/30 s apart); a new message also waits for its chat's
// next slot (1 s apart). A burst is thus paced and delivered in order per chat, never dropped;
// retry-after stays behind it for whatever Telegram still refuses. Slots are kept in this
// process, or, given `shared` (the bots' table in PostgreSQL), where every process of the bot
// takes them: the limits then hold across processes.
import { setTimeout as delay } from 'node:timers/promises';
import type { Transformer } from 'grammy';

export type SendPaceOptions = {
  /** Calls per second for the whole bot (default 30). */
  perSecond?: number;
  /** Milliseconds between new messages in one chat (default 1000). */
  perChatMs?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
  /** Takes the next slot of `key` (spaced `gapMs`) where every process sees it; answers the slot's time (ms epoch). */
  shared?: (key: string, gapMs: number, now: number) => Promise<number>;
};

/** Calls that put something into a chat (answerCallbackQuery, getUpdates and the like are not limited). */
const WRITES = new Set(['sendMessage', 'editMessageText', 'editMessageReplyMarkup', 'deleteMessage', 'sendChatAction']);

export function createSendPace({
  perSecond = 30,
  perChatMs = 1000,
  now = Date.now,
  sleep = (ms, signal) => delay(ms, undefined, signal ? { signal } : {}),
  shared,
}: SendPaceOptions = {}) {
  const gap = 1000 / perSecond;
  let nextBot = 0;
  const nextChat = new Map<string, number>();

  /** Takes the chat's next message slot (1 s apart); answers how long until it. */
  function chatSlot(chatId: string): number {
    const t = now();
    const at = Math.max(t, nextChat.get(chatId) ?? 0);
    nextChat.set(chatId, at + perChatMs);
    if (nextChat.size > 10_000) for (const [k, v] of nextChat) if (v <= t) nextChat.delete(k);
    return at - t;
  }

  /**
   * Takes the bot's next slot (1/30 s apart); answers how long until it. Taken only once the
   * chat's own slot has come, so a chat that must wait leaves the bot's slots to the others.
   */
  function botSlot(): number {
    const t = now();
    const at = Math.max(t, nextBot);
    nextBot = at + gap;
    return at - t;
  }

  const transformer: Transformer = async (prev, method, payload, signal) => {
    if (WRITES.has(method)) {
      const chat = (payload as { chat_id?: unknown } | undefined)?.chat_id;
      // grammY's signal is the abort-controller polyfill's (surface/abortable.ts, platformSignal).
      const s = signal as AbortSignal | undefined;
      if (method === 'sendMessage' && chat !== undefined) {
        const t = now();
        const wait = shared ? (await shared(`chat:${chat}`, perChatMs, t)) - t : chatSlot(String(chat));
        if (wait > 0) await sleep(wait, s);
      }
      const t = now();
      const wait = shared ? (await shared('bot', gap, t)) - t : botSlot();
      if (wait > 0) await sleep(wait, s);
    }
    return prev(method, payload, signal);
  };
  return { transformer, chatSlot, botSlot };
}
