// The Telegram adapter (grammY): long polling, the ChatPort over the Bot API, and updates
// mapped onto the shared surface. Private chats relay everything; in groups the bot answers
// only when mentioned (or replied to) and to commands addressed to it (/wallet@bot): a bare
// /wallet may be meant for another bot, and answering it would post the owner's balances to
// the whole group. A /link with a code is taken even bare, only to void the code, delete the
// message and say why.
//
// Start-up never waits silently: one getMe (grammY's init() would retry a network failure for
// ever, without a word), and the whole start within a deadline; a stop cuts it short.
import { Bot, GrammyError } from 'grammy';
import type { InlineKeyboardMarkup, Message, User } from 'grammy/types';
import { abortable, anySignal } from '../surface/abortable';
import type { ChatButton, ChatPort, ChatUser } from '../surface/chat-port';
import { parseCommand } from '../surface/commands';
import type { PgLinkStore } from '../surface/pg-link-store';
import { COMMANDS, GROUP_HINT, TEXT_ONLY } from '../surface/render';
import { createSurface, type SurfaceOptions } from '../surface/surface';
import { createCallLimit } from './call-limit';
import { retryAfter } from './retry-after';
import { createSendPace } from './send-pace';
import { createWebhookServer } from './webhook';

export const TELEGRAM_API_ROOT = 'https://api.telegram.org';
export const TELEGRAM_MAX_LENGTH = 4096;
/** How long a start waits for the Bot API before it fails. */
const START_LIMIT_S = 10;
/** How long a stop waits for its last Bot API call (confirming the updates taken). */
const STOP_LIMIT_MS = 3000;

export type TelegramBotOptions = Omit<SurfaceOptions, 'port'> & {
  token: string;
  apiRoot?: string;
  /** Long-poll timeout in seconds (default 30). */
  pollTimeoutS?: number;
  /** Updates by webhook instead of long polling (several processes behind a balancer). */
  webhook?: { url: string; secret: string; port: number; host: string } | null;
};

const keyboard = (buttons: readonly ChatButton[]): InlineKeyboardMarkup => ({
  inline_keyboard: [buttons.map((b) => ('url' in b ? { text: b.label, url: b.url } : { text: b.label, callback_data: b.data }))],
});
const chatIdOf = (id: string): number | string => (/^-?\d+$/.test(id) ? Number(id) : id);
const userOf = (u: User): ChatUser => ({ surface: 'telegram', id: String(u.id), name: u.username ?? u.first_name });
const notModified = (e: unknown) => e instanceof GrammyError && e.error_code === 400 && /message is not modified/i.test(e.description);

/**
 * Why a Bot API call failed on the network, without the request's address (it holds the
 * token): grammY's HttpError wraps node-fetch's FetchError, "request to <url> failed,
 * reason: connect ECONNREFUSED …".
 */
function networkReason(e: unknown): string {
  const inner = (e as { error?: unknown } | null)?.error ?? e;
  const message = inner instanceof Error ? inner.message : String(inner);
  return (/reason: (.*)$/.exec(message)?.[1] ?? message).replace(/\bhttps?:\/\/\S+/g, '<address>');
}

export function createTelegramBot(o: TelegramBotOptions) {
  const apiRoot = o.apiRoot ?? TELEGRAM_API_ROOT;
  const pollTimeoutS = o.pollTimeoutS ?? 30;
  // grammY's default limit per call is 500 s; a hung Bot API should not hold a reply that long.
  const bot = new Bot(o.token, { client: { apiRoot, timeoutSeconds: pollTimeoutS + 15 } });
  const callLimit = createCallLimit();
  bot.api.config.use(
    // Innermost: every attempt, retries included, takes a slot; shared by every process when the table is.
    createSendPace('paceSlot' in o.store ? { shared: (o.store as PgLinkStore).paceSlot } : {}).transformer,
    retryAfter({ onWait: (method, seconds) => o.log('warn', 'Telegram asked us to slow down', { method, retry_after: seconds }) }),
    callLimit.transformer, // outermost, so it also cuts retryAfter's waits
  );
  const noPreview = { link_preview_options: { is_disabled: true } };

  const port: ChatPort = {
    surface: 'telegram',
    maxLength: TELEGRAM_MAX_LENGTH,
    async send(chatId, text, buttons) {
      const m = await bot.api.sendMessage(chatIdOf(chatId), text, {
        ...noPreview,
        ...(buttons ? { reply_markup: keyboard(buttons) } : {}),
      });
      return { chatId, messageId: String(m.message_id) };
    },
    async edit(ref, text, buttons) {
      try {
        await bot.api.editMessageText(chatIdOf(ref.chatId), Number(ref.messageId), text, {
          ...noPreview,
          reply_markup: buttons ? keyboard(buttons) : { inline_keyboard: [] },
        });
      } catch (e) {
        if (!notModified(e)) throw e;
      }
    },
    // A private chat's id is the user's id; the bot can write there once the user has started it.
    privateChat: async (userId) => userId,
    async remove(ref) {
      await bot.api.deleteMessage(chatIdOf(ref.chatId), Number(ref.messageId));
    },
  };
  const surface = createSurface({ ...o, port });

  /** In a group: is this message for us? Returns the text without the mention, or null. */
  function addressed(msg: Message & { text: string }): string | null {
    const me = bot.botInfo;
    const repliedToMe = msg.reply_to_message?.from?.id === me.id;
    const cmd = parseCommand(msg.text);
    if (cmd) {
      if (cmd.target) return cmd.target.toLowerCase() === me.username.toLowerCase() ? msg.text : null;
      return repliedToMe || (cmd.name === 'link' && cmd.args !== '') ? msg.text : null;
    }
    const mention = new RegExp(`(^|\\s)@${me.username}\\b`, 'i');
    if (mention.test(msg.text)) return msg.text.replace(new RegExp(`@${me.username}\\b`, 'gi'), '').trim();
    if (repliedToMe) return msg.text.trim();
    return null;
  }

  bot.on('callback_query:data', async (ctx) => {
    const q = ctx.callbackQuery;
    const msg = q.message;
    if (!msg) {
      await ctx.answerCallbackQuery({ text: 'This button is too old; send /pending.' });
      return;
    }
    const answer = await surface.press(userOf(q.from), q.data, { chatId: String(msg.chat.id), messageId: String(msg.message_id) });
    await ctx.answerCallbackQuery({ text: answer.toast, ...(answer.run ? {} : { show_alert: true }) });
    if (answer.run) surface.spawn(answer.run);
  });

  bot.on('message', (ctx) => {
    const msg = ctx.message;
    if (!msg.from || msg.from.is_bot) return;
    const isPrivate = msg.chat.type === 'private';
    const chatId = String(msg.chat.id);
    if (msg.text === undefined) {
      if (isPrivate) surface.spawn(() => surface.say(chatId, TEXT_ONLY));
      return;
    }
    const text = isPrivate ? msg.text : addressed(msg as Message & { text: string });
    if (text === null) return;
    const user = userOf(msg.from);
    if (text === '') {
      surface.spawn(() => surface.say(chatId, GROUP_HINT));
      return;
    }
    surface.spawn(() => surface.text(user, chatId, text, { isPrivate, source: { chatId, messageId: String(msg.message_id) } }));
  });

  bot.catch((err) => o.log('error', 'a Telegram update failed', { update: err.ctx.update.update_id, error: String(err.error) }));

  const webhook = o.webhook
    ? createWebhookServer({
        path: new URL(o.webhook.url).pathname,
        secret: o.webhook.secret,
        port: o.webhook.port,
        host: o.webhook.host,
        claim: (id) => o.store.claimUpdate('telegram', id),
        handle: (update) => bot.handleUpdate(update),
        log: o.log,
      })
    : null;
  let polling: Promise<void> | null = null;
  let polled = false; // updates may have been taken: a stop confirms them
  let stopping = false;

  /** What a failed start says: the platform's refusal as it is, otherwise whether the API answered at all. */
  function startFailure(e: unknown, deadline: AbortSignal): unknown {
    if (e instanceof GrammyError) return e;
    if (deadline.aborted) return new Error(`the Telegram Bot API at ${apiRoot} did not answer within ${START_LIMIT_S} s`);
    return new Error(`the Telegram Bot API at ${apiRoot} cannot be reached (${networkReason(e)})`);
  }

  return {
    bot,
    surface,
    port,
    /**
     * getMe, commands menu, events feeds, then long polling; resolves once polling runs.
     * Fails when the Bot API refuses the token, cannot be reached or does not answer within
     * the start limit; rejects with the signal's reason as soon as `signal` aborts.
     */
    async start(signal?: AbortSignal) {
      const deadline = AbortSignal.timeout(START_LIMIT_S * 1000);
      const limit = anySignal(signal, deadline);
      callLimit.set(limit);
      o.log('info', 'Telegram: reaching the Bot API', { api: apiRoot });
      try {
        // One attempt: init() would retry a network failure for ever, silently.
        bot.botInfo = await bot.api.getMe();
        await bot.api.setMyCommands(COMMANDS.map((c) => ({ command: c.name, description: c.description }))).catch((e: unknown) => {
          if (!limit.aborted) o.log('warn', 'could not set the Telegram command menu', { error: String(e) });
        });
        limit.throwIfAborted();
        surface.start();
        if (webhook && o.webhook) {
          const local = await webhook.listen();
          await bot.api.setWebhook(o.webhook.url, { secret_token: o.webhook.secret, allowed_updates: ['message', 'callback_query'] });
          o.log('info', 'Telegram bot serving its webhook', { username: bot.botInfo.username, listening: local });
          return;
        }
        await abortable(
          new Promise<void>((resolve, reject) => {
            polling = bot.start({
              allowed_updates: ['message', 'callback_query'],
              timeout: pollTimeoutS,
              onStart: () => {
                polled = true;
                callLimit.set(undefined); // before the first long poll: the deadline is the start's only
                resolve();
              },
            });
            polling.catch((e: unknown) => {
              if (!stopping) o.log('error', 'Telegram polling stopped', { error: String(e) });
              reject(e);
            });
          }),
          limit,
        );
      } catch (e) {
        signal?.throwIfAborted(); // asked to stop: not a failure
        throw startFailure(e, deadline);
      } finally {
        callLimit.set(undefined);
      }
      o.log('info', 'Telegram bot polling', { username: bot.botInfo.username });
    },
    /**
     * Stops polling (confirming the updates taken, for a few seconds at most), waits for work
     * in flight, stops the feeds. Also ends grammY's polling set-up left by an aborted start.
     */
    async stop() {
      stopping = true;
      // The webhook stays set: the other processes behind the balancer keep serving it.
      await webhook?.close();
      if (bot.isRunning()) {
        // bot.stop() is what ends grammY's set-up too; before the first poll there is nothing to confirm.
        callLimit.set(polled ? AbortSignal.timeout(STOP_LIMIT_MS) : AbortSignal.abort());
        try {
          await bot.stop();
        } catch (e) {
          if (polled) o.log('warn', 'could not confirm the last Telegram updates; they may come again', { error: networkReason(e) });
        } finally {
          callLimit.set(undefined);
        }
      }
      await polling?.catch(() => undefined);
      await surface.stop();
    },
  };
}
