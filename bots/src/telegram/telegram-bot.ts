// The Telegram adapter (grammY): long polling, the ChatPort over the Bot API, and updates
// mapped onto the shared surface. Private chats relay everything; in groups the bot answers
// only when mentioned (or replied to) and to commands addressed to it (/wallet@bot): a bare
// /wallet may be meant for another bot, and answering it would post the owner's balances to
// the whole group. A /link with a code is taken even bare, only to void the code, delete the
// message and say why.
import { Bot, GrammyError } from 'grammy';
import type { InlineKeyboardMarkup, Message, User } from 'grammy/types';
import type { ChatButton, ChatPort, ChatUser } from '../surface/chat-port';
import { parseCommand } from '../surface/commands';
import { COMMANDS, GROUP_HINT, TEXT_ONLY } from '../surface/render';
import { createSurface, type SurfaceOptions } from '../surface/surface';
import { retryAfter } from './retry-after';

export const TELEGRAM_API_ROOT = 'https://api.telegram.org';
export const TELEGRAM_MAX_LENGTH = 4096;

export type TelegramBotOptions = Omit<SurfaceOptions, 'port'> & {
  token: string;
  apiRoot?: string;
  /** Long-poll timeout in seconds (default 30). */
  pollTimeoutS?: number;
};

const keyboard = (buttons: readonly ChatButton[]): InlineKeyboardMarkup => ({
  inline_keyboard: [buttons.map((b) => ({ text: b.label, callback_data: b.data }))],
});
const chatIdOf = (id: string): number | string => (/^-?\d+$/.test(id) ? Number(id) : id);
const userOf = (u: User): ChatUser => ({ surface: 'telegram', id: String(u.id), name: u.username ?? u.first_name });
const notModified = (e: unknown) => e instanceof GrammyError && e.error_code === 400 && /message is not modified/i.test(e.description);

export function createTelegramBot(o: TelegramBotOptions) {
  const bot = new Bot(o.token, { client: { apiRoot: o.apiRoot ?? TELEGRAM_API_ROOT } });
  bot.api.config.use(
    retryAfter({ onWait: (method, seconds) => o.log('warn', 'Telegram asked us to slow down', { method, retry_after: seconds }) }),
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
    const answer = surface.press(userOf(q.from), q.data, { chatId: String(msg.chat.id), messageId: String(msg.message_id) });
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

  let polling: Promise<void> | null = null;
  return {
    bot,
    surface,
    port,
    /** getMe, commands menu, events feeds, then long polling; resolves once polling runs. */
    async start() {
      await bot.init();
      await bot.api
        .setMyCommands(COMMANDS.map((c) => ({ command: c.name, description: c.description })))
        .catch((e: unknown) => o.log('warn', 'could not set the Telegram command menu', { error: String(e) }));
      surface.start();
      await new Promise<void>((resolve, reject) => {
        polling = bot.start({
          allowed_updates: ['message', 'callback_query'],
          timeout: o.pollTimeoutS ?? 30,
          onStart: () => resolve(),
        });
        polling.catch((e: unknown) => {
          o.log('error', 'Telegram polling stopped', { error: String(e) });
          reject(e);
        });
      });
      o.log('info', 'Telegram bot polling', { username: bot.botInfo.username });
    },
    /** Stops polling (updates already taken are confirmed), waits for work in flight, stops the feeds. */
    async stop() {
      if (bot.isRunning()) await bot.stop();
      await polling?.catch(() => undefined);
      await surface.stop();
    },
  };
}
