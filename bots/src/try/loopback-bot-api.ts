// A Telegram Bot API of one private chat, on loopback, for `presence-bots try`: the real
// Telegram bot (grammY, long polling) runs against it unchanged, and whoever drives it (the
// terminal chat) types as the one user and sees what the bot shows. Only the methods the bot
// calls; an unknown one answers 404 as Telegram would, and is reported.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { longPoll } from './long-poll';

export type Button = { text: string; data: string };
/** What the bot shows in the chat: a message (new or edited), a removal, or a notice on a button press. */
export type Shown =
  | { kind: 'message'; id: number; text: string; buttons: Button[]; edited: boolean }
  | { kind: 'deleted'; id: number; mine: boolean }
  | { kind: 'notice'; text: string }
  | { kind: 'unknown'; method: string };

export type LoopbackBotApi = {
  /** The apiRoot for grammY (TELEGRAM_API_ROOT). */
  url: string;
  /** The user writes `text` in the chat. */
  say(text: string): void;
  /** The user presses a button of message `id`. */
  press(id: number, data: string): void;
  close(): Promise<void>;
};

type Json = Record<string, unknown>;
type Keyboard = { inline_keyboard?: { text: string; callback_data?: string }[][] };

const buttonsOf = (markup: unknown): Button[] =>
  ((markup as Keyboard | undefined)?.inline_keyboard ?? []).flat().map((b) => ({ text: b.text, data: b.callback_data ?? '' }));

async function body(req: http.IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  return (req.headers['content-type'] ?? '').includes('application/json')
    ? JSON.parse(text)
    : Object.fromEntries(new URLSearchParams(text));
}

export async function startLoopbackBotApi(options: {
  token: string;
  user: { id: number; first_name: string; username: string };
  show: (s: Shown) => void;
}) {
  const { token, user, show } = options;
  const chat = { id: user.id, type: 'private', first_name: user.first_name, username: user.username };
  const from = { ...user, is_bot: false };
  const me = { id: 1, is_bot: true, first_name: 'Presence', username: 'presence_try_bot', can_join_groups: false };
  const texts = new Map<number, { text: string; markup?: unknown; fromBot: boolean }>();
  const updates: Json[] = [];
  const waiting = new Set<() => void>();
  const sockets = new Set<Socket>();
  let nextUpdate = 1;
  let nextMessage = 1;

  const push = (update: Json) => {
    updates.push({ update_id: nextUpdate++, ...update });
    for (const wake of [...waiting]) wake();
  };
  const wire = (id: number) => {
    const m = texts.get(id);
    return {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat,
      from: m?.fromBot ? me : from,
      text: m?.text,
      reply_markup: m?.markup,
    };
  };

  /** The answer to one call: its result, or [status, description] for an error. */
  async function answer(method: string, p: Json, res: http.ServerResponse): Promise<unknown> {
    const id = Number(p.message_id);
    switch (method) {
      case 'getMe':
        return me;
      case 'deleteWebhook':
      case 'setMyCommands':
      case 'sendChatAction':
      case 'answerCallbackQuery':
        if (method === 'answerCallbackQuery' && typeof p.text === 'string' && p.text) show({ kind: 'notice', text: p.text });
        return true;
      case 'getUpdates': {
        const offset = Number(p.offset ?? 0);
        while (updates.length > 0 && Number(updates[0]?.update_id) < offset) updates.shift();
        if (updates.length === 0 && Number(p.timeout ?? 0) > 0) {
          await longPoll(waiting, Number(p.timeout), res);
        }
        return updates.slice(0, Number(p.limit ?? 100));
      }
      case 'sendMessage': {
        const mid = nextMessage++;
        texts.set(mid, { text: String(p.text ?? ''), markup: p.reply_markup, fromBot: true });
        show({ kind: 'message', id: mid, text: String(p.text ?? ''), buttons: buttonsOf(p.reply_markup), edited: false });
        return wire(mid);
      }
      case 'editMessageText':
      case 'editMessageReplyMarkup': {
        const m = texts.get(id);
        if (!m?.fromBot) return [400, 'Bad Request: message to edit not found'];
        const text = method === 'editMessageText' ? String(p.text ?? '') : m.text;
        if (text === m.text && JSON.stringify(p.reply_markup ?? null) === JSON.stringify(m.markup ?? null))
          return [400, 'Bad Request: message is not modified'];
        texts.set(id, { text, markup: p.reply_markup, fromBot: true });
        show({ kind: 'message', id, text, buttons: buttonsOf(p.reply_markup), edited: true });
        return wire(id);
      }
      case 'deleteMessage': {
        const m = texts.get(id);
        if (!m) return [400, 'Bad Request: message to delete not found'];
        texts.delete(id);
        show({ kind: 'deleted', id, mine: !m.fromBot });
        return true;
      }
      default:
        show({ kind: 'unknown', method });
        return [404, `Not Found: method ${method} not found`];
    }
  }

  const server = http.createServer((req, res) => {
    const send = (status: number, payload: Json) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    body(req)
      .then(async (p) => {
        if (!m || m[1] !== token) return send(401, { ok: false, error_code: 401, description: 'Unauthorized' });
        const result = await answer(m[2] as string, p, res);
        if (Array.isArray(result) && typeof result[0] === 'number' && typeof result[1] === 'string')
          return send(result[0], { ok: false, error_code: result[0], description: result[1] });
        send(200, { ok: true, result });
      })
      .catch((e: unknown) => send(500, { ok: false, error_code: 500, description: String(e) }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    say(text: string) {
      const mid = nextMessage++;
      texts.set(mid, { text, fromBot: false });
      push({ message: wire(mid) });
    },
    press(id: number, data: string) {
      push({ callback_query: { id: `try-${nextUpdate}`, from, chat_instance: 'try', message: wire(id), data } });
    },
    async close() {
      for (const wake of [...waiting]) wake();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  } satisfies LoopbackBotApi;
}
