// Telegram by webhook, one process: Telegram is answered 200 before an update's slow work.
// A message delivered while the real Presence server is slow (every request the bots make
// waits at a gate the test opens) is answered 200 while the relay it started is held there,
// and answered in the chat once the gate opens. A button press, whose handling waits for its
// answerCallbackQuery before anything else, is answered 200 while the Bot API holds that call:
// were the webhook to answer after handling, that 200 would wait for the Bot API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log';
import { type RunningBots, runBots } from '../src/run-bots';
import { type Presence, removeDir, startPresence, tempDir } from './helpers/presence';
import { startTelegramApi, type TelegramApi, type TgUser } from './helpers/telegram-api';
import { waitFor } from './helpers/wait';

const TOKEN = '123456789:AAF-loopback-telegram-token-xyz';
const SECRET = 'loopback-webhook-secret-0123456789';
const wren: TgUser = { id: 5001, is_bot: false, first_name: 'Wren', username: 'wren' };

let presence: Presence;
let tg: TelegramApi;
let bots: RunningBots;
let dataDir: string;
const logs: string[] = [];

/** While set, every request to Presence waits for it; `held` counts those waiting. */
let gate: Promise<void> | null = null;
let held = 0;
const slowFetch: typeof fetch = async (input, init) => {
  const g = gate;
  if (g) {
    held++;
    await g;
    held--;
  }
  return fetch(input, init);
};

let nextUpdate = 1;
const post = (url: string, update: Record<string, unknown>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
    body: JSON.stringify({ update_id: nextUpdate++, ...update }),
  });
const deliver = (url: string, text: string) =>
  post(url, {
    message: {
      message_id: tg.say(wren, text),
      date: Math.floor(Date.now() / 1000),
      chat: { id: wren.id, type: 'private' },
      from: wren,
      text,
    },
  });

beforeAll(async () => {
  presence = await startPresence();
  tg = await startTelegramApi({ token: TOKEN });
  dataDir = tempDir('presence-bots-webhook-');
  bots = await runBots(
    {
      presenceUrl: presence.server.url,
      dataDir,
      telegram: {
        token: TOKEN,
        apiRoot: tg.url,
        webhook: { url: 'https://bots.example/telegram-hook', secret: SECRET, port: 0, host: '127.0.0.1' },
      },
      discord: null,
    },
    createLogger((line) => logs.push(line), 'json'),
    { client: { retries: 0, fetch: slowFetch } },
  );
}, 60_000);

afterAll(async () => {
  await bots?.stop();
  if (process.env.BOTS_TEST_LOGS) console.log(logs.join('\n'));
  await tg?.close();
  await presence?.close();
  if (dataDir) removeDir(dataDir);
});

describe('the Telegram webhook', () => {
  it('answers 200 while the update it took is still waiting on a slow Presence, then handles it', async () => {
    const hook = /"listening":"(http:\/\/[^"]+)"/.exec(logs.join('\n'))?.[1] as string;
    expect(hook).toBeTruthy();
    const { code } = await presence.admin.links.create();
    expect((await deliver(hook, `/link ${code}`)).status).toBe(200);
    await waitFor(() => tg.botMessages(wren.id).some((m) => m.text.startsWith('Linked to the account default')), { what: 'wren linked' });
    const before = tg.botMessages(wren.id).length;

    let open: () => void = () => undefined;
    gate = new Promise<void>((r) => {
      open = r;
    });
    const answer = await deliver(hook, 'what is my balance?');
    expect(answer.status).toBe(200);
    // The relay the update started is under way and held: the 200 did not wait for it.
    await waitFor(() => held > 0, { what: 'the relay held at the slow Presence' });
    expect(tg.botMessages(wren.id)).toHaveLength(before);

    gate = null;
    open();
    await waitFor(() => tg.botMessages(wren.id).length > before, { what: 'the reply once Presence answers' });
    expect(held).toBe(0);
  });

  it('answers 200 to a button press while the Bot API holds its answerCallbackQuery, then approves', async () => {
    const hook = /"listening":"(http:\/\/[^"]+)"/.exec(logs.join('\n'))?.[1] as string;
    const hold = await presence.admin.wallet.intent({ do: 'swap 21 USDC for WETH' });
    if (hold.status !== 'needs_confirm') throw new Error('expected a hold');
    const data = `cf:${hold.confirm_id}:a`;
    const card = await waitFor(
      () => tg.botMessages(wren.id).find((m) => m.reply_markup?.inline_keyboard.flat()[0]?.callback_data === data),
      {
        what: "wren's card",
      },
    );

    tg.hang('answerCallbackQuery');
    const press = {
      callback_query: {
        id: 'cb-wren',
        from: wren,
        chat_instance: 'ci',
        message: { message_id: card.message_id, date: Math.floor(Date.now() / 1000), chat: card.chat, from: tg.bot, text: card.text },
        data,
      },
    };
    expect((await post(hook, press)).status).toBe(200);
    await waitFor(() => tg.callbackAnswers('cb-wren').length > 0, { what: 'the press answered, held by the Bot API' });
    expect(card.text).not.toMatch(/^✅/);

    await tg.unhang('answerCallbackQuery');
    await waitFor(() => card.text.startsWith('✅ Approved and executed'), { what: 'the card executed', timeoutMs: 20_000 });
  });
});
