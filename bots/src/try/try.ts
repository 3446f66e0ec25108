// `presence-bots try`: the Telegram bot, unchanged, against a loopback Bot API of one private
// chat that the terminal drives, so you can see it work with a Presence server and no
// Telegram account, bot token or network. Its link table lives in a temporary directory that
// goes at the end. With PRESENCE_TOKEN (an admin key) it makes a link code and links the chat
// itself. Ends on /quit, end of input (Ctrl-D) or SIGINT/SIGTERM, with exit code 0; a
// Presence server that does not answer is one line and exit code 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createPresenceClient } from '@presence/client';
import { DEFAULT_PRESENCE_URL } from '../config';
import { createLogger } from '../log';
import { runBots } from '../run-bots';
import { type LoopbackBotApi, startLoopbackBotApi } from './loopback-bot-api';
import { createTerminalChat } from './terminal-chat';

const TOKEN = '1:presence-bots-try-loopback';
const USER = { id: 4242, first_name: 'You', username: 'you' };

export async function runTry(io: {
  env: NodeJS.ProcessEnv;
  input: NodeJS.ReadableStream;
  write: (text: string) => void;
  /** One line on stderr. */
  warn: (line: string) => void;
  signal?: AbortSignal;
}): Promise<number> {
  const { env, write, warn } = io;
  const presenceUrl = (env.PRESENCE_URL?.trim() || DEFAULT_PRESENCE_URL).replace(/\/+$/, '');
  try {
    await fetch(`${presenceUrl}/v1/health`, { signal: AbortSignal.timeout(5000) });
  } catch {
    warn(`presence-bots try: no Presence server answers at ${presenceUrl}: start one (npm start) or set PRESENCE_URL`);
    return 1;
  }
  const log = quietLog(warn);

  const chat = createTerminalChat({ write });
  const api = await startLoopbackBotApi({ token: TOKEN, user: USER, show: chat.show });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'presence-bots-try-'));
  try {
    const bots = await runBots(
      { presenceUrl, dataDir, telegram: { token: TOKEN, apiRoot: api.url }, discord: null },
      log,
      { pollTimeoutS: 5 },
      io.signal,
    ).catch((e: unknown) => {
      if (io.signal?.aborted) return null; // ended during the start: nothing to say
      throw e;
    });
    if (!bots) return 0;
    try {
      write(
        `The Telegram bot, on a loopback Bot API instead of Telegram, with Presence at ${presenceUrl}.\n` +
          'You are @you in a private chat with it: type a message and press Enter; a number presses that button of the last message with buttons; /quit or Ctrl-D ends.\n',
      );
      await linkTheChat(env.PRESENCE_TOKEN?.trim(), { presenceUrl, log, write, api });
      // Read only now: what was typed (or piped) meanwhile waits in the input, and readline's
      // iterator would miss lines and the end of input that came before it.
      await chatUntilTheEnd(io.input, io.signal, chat, api);
    } finally {
      await bots.stop();
    }
    return 0;
  } finally {
    await api.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Hands each line typed to the chat (a message, a button press) until /quit, the end of input
 * or `signal`, then shows what the bot was still saying.
 */
async function chatUntilTheEnd(
  input: NodeJS.ReadableStream,
  signal: AbortSignal | undefined,
  chat: ReturnType<typeof createTerminalChat>,
  api: Pick<LoopbackBotApi, 'say' | 'press'>,
) {
  const reader = createInterface({ input, terminal: false });
  try {
    if (signal?.aborted) reader.close();
    signal?.addEventListener('abort', () => reader.close(), { once: true });
    for await (const line of reader) {
      const typed = chat.read(line);
      if (typed.kind === 'quit') break;
      if (typed.kind === 'say') api.say(typed.text);
      if (typed.kind === 'press') api.press(typed.id, typed.data);
    }
  } finally {
    reader.close();
  }
  // What the bot was still saying when the input ended.
  await new Promise((r) => setTimeout(r, 1000));
  chat.flush();
}

/** The bots' own warnings and errors still show; their info lines would drown the chat. */
function quietLog(warn: (line: string) => void) {
  const base = createLogger((line) => warn(line), 'pretty');
  return Object.assign(
    (level: Parameters<typeof base>[0], message: string, fields?: Record<string, unknown>) => {
      if (level !== 'info') base(level, message, fields);
    },
    { addSecret: base.addSecret },
  );
}

/** With an admin key, makes a link code and types /link for the user; without one, says how. */
async function linkTheChat(
  adminKey: string | undefined,
  o: { presenceUrl: string; log: ReturnType<typeof quietLog>; write: (text: string) => void; api: { say(text: string): void } },
) {
  if (!adminKey) {
    o.write('To link this chat: make a one-time code (npx presence link, with an admin key) and type /link CODE.\n');
    return;
  }
  o.log.addSecret(adminKey);
  const { code } = await createPresenceClient({ baseUrl: o.presenceUrl, token: adminKey }).links.create();
  o.write(`you> /link ${code}   (a one-time code made with PRESENCE_TOKEN)\n`);
  o.api.say(`/link ${code}`);
}
