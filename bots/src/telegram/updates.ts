// Telegram updates mapped onto the shared surface. Private chats relay everything; in groups
// the bot answers only when mentioned (or replied to) and to commands addressed to it
// (/wallet@bot): a bare /wallet may be meant for another bot, and answering it would post the
// owner's balances to the whole group. A /link with a code is taken even bare, only to void
// the code, delete the message and say why.
import type { Bot } from 'grammy';
import type { Message, User } from 'grammy/types';
import type { ChatUser } from '../surface/chat-port';
import { parseCommand } from '../surface/commands';
import { GROUP_HINT, TEXT_ONLY } from '../surface/render';
import type { Surface } from '../surface/surface';

const userOf = (u: User): ChatUser => ({ surface: 'telegram', id: String(u.id), name: u.username ?? u.first_name });

/** In a group: is this message for the bot? Returns the text without the mention, or null. */
function addressed(bot: Bot, msg: Message & { text: string }): string | null {
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

/** Hands the bot's button presses and messages to the surface. */
export function routeUpdates(bot: Bot, surface: Surface) {
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
    const text = isPrivate ? msg.text : addressed(bot, msg as Message & { text: string });
    if (text === null) return;
    const user = userOf(msg.from);
    if (text === '') {
      surface.spawn(() => surface.say(chatId, GROUP_HINT));
      return;
    }
    surface.spawn(() => surface.text(user, chatId, text, { isPrivate, source: { chatId, messageId: String(msg.message_id) } }));
  });
}
