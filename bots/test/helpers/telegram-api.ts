// A loopback Telegram Bot API for tests: just the methods the bot calls, with long-polled
// getUpdates fed by the test, a message table the test can read (text, keyboard, edits),
// callback answers, 429s on demand, and methods that do not answer (a hung Bot API). Unknown
// methods are logged in `unknown`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { longPoll } from '../../src/try/long-poll';

export type TgUser = { id: number; is_bot: false; first_name: string; username?: string };
export type TgChat = { id: number; type: 'private' | 'group'; title?: string };
export type InlineKeyboard = {
  inline_keyboard: ({ text: string; callback_data: string } | { text: string; url: string; callback_data?: undefined })[][];
};

export type TgMessage = {
  message_id: number;
  chat: TgChat;
  /** The bot's own messages; false for what the test sent as a user. */
  fromBot: boolean;
  text: string;
  reply_markup?: InlineKeyboard;
  /** Every text it showed, first to last. */
  history: string[];
  edits: number;
  deleted: boolean;
};

export type TgCall = { method: string; payload: Record<string, unknown>; at: number; status: number };

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  if ((req.headers['content-type'] ?? '').includes('application/json')) return JSON.parse(text);
  return Object.fromEntries(new URLSearchParams(text));
}

export async function startTelegramApi({ token, username = 'presence_test_bot' }: { token: string; username?: string }) {
  const bot = { id: 777000, is_bot: true, first_name: 'Presence', username };
  let nextUpdate = 1;
  let nextMessage = 1;
  const updates: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  const calls: TgCall[] = [];
  const unknown: string[] = [];
  const messages = new Map<string, TgMessage>();
  const chats = new Map<number, TgChat>();
  const failures: { method: string; retryAfter: number }[] = [];
  const hung = new Set<string>();
  /** Calls taken while their method hung, to be answered by `unhang`. */
  const held: { method: string; answer: () => Promise<void> }[] = [];
  const sockets = new Set<import('node:net').Socket>();
  /** What setWebhook was called with, in order. */
  const webhooks: { url: string; secret: string }[] = [];

  const chatOf = (id: number): TgChat => chats.get(id) ?? { id, type: id > 0 ? 'private' : 'group' };
  const msgKey = (chatId: number, messageId: number) => `${chatId}:${messageId}`;
  const wire = (m: TgMessage) => ({
    message_id: m.message_id,
    date: Math.floor(Date.now() / 1000),
    chat: m.chat,
    from: m.fromBot ? bot : undefined,
    text: m.text,
    reply_markup: m.reply_markup?.inline_keyboard.length ? m.reply_markup : undefined,
  });
  const bad = (res: http.ServerResponse, description: string, code = 400) => json(res, code, { ok: false, error_code: code, description });
  const ok = (res: http.ServerResponse, result: unknown) => json(res, 200, { ok: true, result });

  function push(update: Record<string, unknown>) {
    updates.push({ update_id: nextUpdate++, ...update });
    for (const w of [...waiters]) w();
  }

  async function handle(method: string, p: Record<string, unknown>, res: http.ServerResponse) {
    const chatId = Number(p.chat_id);
    const find = () => messages.get(msgKey(chatId, Number(p.message_id)));
    switch (method) {
      case 'getMe':
        return ok(res, { ...bot, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false });
      case 'setWebhook':
        webhooks.push({ url: String(p.url), secret: String(p.secret_token ?? '') });
        return ok(res, true);
      case 'deleteWebhook':
      case 'setMyCommands':
      case 'sendChatAction':
        return ok(res, true);
      case 'getUpdates': {
        const offset = Number(p.offset ?? 0);
        const limit = Number(p.limit ?? 100);
        const take = () => {
          while (updates.length > 0 && Number(updates[0]?.update_id) < offset) updates.shift();
          return updates.slice(0, limit);
        };
        if (take().length === 0 && Number(p.timeout ?? 0) > 0) {
          await longPoll(waiters, Number(p.timeout), res);
        }
        if (res.destroyed) return;
        return ok(res, take());
      }
      case 'sendMessage': {
        if (typeof p.text !== 'string' || p.text.trim() === '') return bad(res, 'Bad Request: message text is empty');
        if (p.text.length > 4096) return bad(res, 'Bad Request: message is too long');
        const m: TgMessage = {
          message_id: nextMessage++,
          chat: chatOf(chatId),
          fromBot: true,
          text: p.text,
          ...(p.reply_markup ? { reply_markup: p.reply_markup as InlineKeyboard } : {}),
          history: [p.text],
          edits: 0,
          deleted: false,
        };
        messages.set(msgKey(chatId, m.message_id), m);
        return ok(res, wire(m));
      }
      case 'editMessageText': {
        const m = find();
        if (!m?.fromBot) return bad(res, 'Bad Request: message to edit not found');
        if (typeof p.text !== 'string' || p.text.length > 4096) return bad(res, 'Bad Request: message is too long');
        const markup = (p.reply_markup as InlineKeyboard | undefined) ?? { inline_keyboard: [] };
        if (m.text === p.text && JSON.stringify(m.reply_markup ?? { inline_keyboard: [] }) === JSON.stringify(markup)) {
          return bad(res, 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same');
        }
        m.text = p.text;
        m.reply_markup = markup;
        m.history.push(p.text);
        m.edits++;
        return ok(res, wire(m));
      }
      case 'editMessageReplyMarkup': {
        const m = find();
        if (!m?.fromBot) return bad(res, 'Bad Request: message to edit not found');
        m.reply_markup = (p.reply_markup as InlineKeyboard | undefined) ?? { inline_keyboard: [] };
        m.edits++;
        return ok(res, wire(m));
      }
      case 'deleteMessage': {
        const m = find();
        if (!m) return bad(res, 'Bad Request: message to delete not found');
        m.deleted = true;
        return ok(res, true);
      }
      case 'answerCallbackQuery':
        return ok(res, true);
      default:
        unknown.push(method);
        return bad(res, `Not Found: method ${method} not found`, 404);
    }
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    void (async () => {
      const payload = await readBody(req);
      if (!m) return bad(res, 'Not Found', 404);
      const [, t, method] = m as unknown as [string, string, string];
      const call: TgCall = { method, payload, at: Date.now(), status: 200 };
      calls.push(call);
      if (t !== token) {
        call.status = 401;
        return bad(res, 'Unauthorized', 401);
      }
      if (hung.has(method)) {
        held.push({ method, answer: () => handle(method, payload, res) }); // left open until unhang() or close()
        return;
      }
      const f = failures.findIndex((x) => x.method === method);
      if (f !== -1) {
        const { retryAfter } = failures.splice(f, 1)[0] as { retryAfter: number };
        call.status = 429;
        return json(res, 429, {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${retryAfter}`,
          parameters: { retry_after: retryAfter },
        });
      }
      await handle(method, payload, res);
    })().catch((e) => {
      if (!res.headersSent) json(res, 500, { ok: false, error_code: 500, description: String(e) });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    bot,
    calls,
    webhooks,
    unknown,
    /** A user writes in a chat; returns the message id. */
    say(from: TgUser, text: string, chat: TgChat = { id: from.id, type: 'private' }, extra: Record<string, unknown> = {}) {
      chats.set(chat.id, chat);
      const m: TgMessage = { message_id: nextMessage++, chat, fromBot: false, text, history: [text], edits: 0, deleted: false };
      messages.set(msgKey(chat.id, m.message_id), m);
      push({ message: { message_id: m.message_id, date: Math.floor(Date.now() / 1000), chat, from: from, text, ...extra } });
      return m.message_id;
    },
    /** A user presses an inline button under one of the bot's messages; returns the callback id. */
    press(from: TgUser, message: TgMessage, data: string) {
      const id = `cb${nextUpdate}`;
      push({ callback_query: { id, from, chat_instance: 'ci', message: { ...wire(message) }, data } });
      return id;
    },
    /** The bot's messages in a chat (not deleted), oldest first. */
    botMessages(chatId: number) {
      return [...messages.values()].filter((m) => m.fromBot && !m.deleted && m.chat.id === chatId);
    },
    message: (chatId: number, messageId: number) => messages.get(msgKey(chatId, messageId)),
    callbackAnswers: (id: string) => calls.filter((c) => c.method === 'answerCallbackQuery' && c.payload.callback_query_id === id),
    /** The next call of `method` answers 429 with retry_after. */
    failNext(method: string, retryAfter: number) {
      failures.push({ method, retryAfter });
    },
    /** From now on, calls of `method` are taken and not answered (until `unhang`). */
    hang(method: string) {
      hung.add(method);
    },
    /** Calls of `method` are answered again, those taken meanwhile first. */
    async unhang(method: string) {
      hung.delete(method);
      for (const h of held.filter((x) => x.method === method)) {
        held.splice(held.indexOf(h), 1);
        await h.answer();
      }
    },
    async close() {
      for (const w of [...waiters]) w();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type TelegramApi = Awaited<ReturnType<typeof startTelegramApi>>;
