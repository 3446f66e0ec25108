// The ChatPort over the Telegram Bot API: messages are sent and edited without link previews,
// buttons become an inline keyboard (a button with a url opens it, any other sends its data
// back), and an edit that changes nothing is not an error.
import { type Api, GrammyError } from 'grammy';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { ChatButton, ChatPort } from '../surface/chat-port';

export const TELEGRAM_MAX_LENGTH = 4096;

const keyboard = (buttons: readonly ChatButton[]): InlineKeyboardMarkup => ({
  inline_keyboard: [buttons.map((b) => ('url' in b ? { text: b.label, url: b.url } : { text: b.label, callback_data: b.data }))],
});
const chatIdOf = (id: string): number | string => (/^-?\d+$/.test(id) ? Number(id) : id);
const notModified = (e: unknown) => e instanceof GrammyError && e.error_code === 400 && /message is not modified/i.test(e.description);
const noPreview = { link_preview_options: { is_disabled: true } };

export function createTelegramPort(api: Api): ChatPort {
  return {
    surface: 'telegram',
    maxLength: TELEGRAM_MAX_LENGTH,
    async send(chatId, text, buttons) {
      const m = await api.sendMessage(chatIdOf(chatId), text, {
        ...noPreview,
        ...(buttons ? { reply_markup: keyboard(buttons) } : {}),
      });
      return { chatId, messageId: String(m.message_id) };
    },
    async edit(ref, text, buttons) {
      try {
        await api.editMessageText(chatIdOf(ref.chatId), Number(ref.messageId), text, {
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
      await api.deleteMessage(chatIdOf(ref.chatId), Number(ref.messageId));
    },
  };
}
