// The Telegram bot with a surface token (PRESENCE_SURFACE_TOKEN), against the real server on
// its devnet and a loopback Bot API: a user linked the old way (key kept, sealed) is moved
// over at the next start (the secret forgotten, the events missed while the bot was down
// replayed once); new links keep no secret at all; the bot reads one surface stream instead
// of one stream per user; a card works through Presence-Acting-For; a revoked key unlinks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log';
import { type RunningBots, runBots } from '../src/run-bots';
import { replayLinkLog } from '../src/surface/link-log';
import { LINKS_FILE } from '../src/surface/link-store';
import { REVOKED } from '../src/surface/render';
import { type Presence, removeDir, startPresence, tempDir } from './helpers/presence';
import { startTelegramApi, type TelegramApi, type TgMessage, type TgUser } from './helpers/telegram-api';
import { waitFor } from './helpers/wait';

const TOKEN = '123456789:AAF-loopback-telegram-token-xyz';
const olga: TgUser = { id: 2001, is_bot: false, first_name: 'Olga', username: 'olga' };
const nina: TgUser = { id: 2002, is_bot: false, first_name: 'Nina', username: 'nina' };

let presence: Presence;
let tg: TelegramApi;
let bots: RunningBots | null = null;
let dataDir: string;
let surfaceToken: string;
const logs: string[] = [];
const paths: string[] = [];
const counting: typeof fetch = (input, init) => {
  paths.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
  return fetch(input, init);
};

const startBots = (withSurface: boolean) =>
  runBots(
    {
      presenceUrl: presence.server.url,
      dataDir,
      telegram: { token: TOKEN, apiRoot: tg.url },
      discord: null,
      surfaceToken: withSurface ? surfaceToken : null,
    },
    createLogger((line) => logs.push(line)),
    {
      pollTimeoutS: 5,
      client: { retries: 1, fetch: counting },
      events: { reconnect: { baseDelayMs: 50, maxDelayMs: 300 }, restartMs: 300 },
    },
  );

const botMessage = (chatId: number, test: (m: TgMessage) => boolean, what = 'a bot message') =>
  waitFor(() => tg.botMessages(chatId).filter(test).at(-1), { what });
const table = () => readFileSync(path.join(dataDir, LINKS_FILE), 'utf8');
const say = (text: string) =>
  presence.server.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', { text, cause: 'standing:test' });

beforeAll(async () => {
  presence = await startPresence();
  tg = await startTelegramApi({ token: TOKEN });
  dataDir = tempDir('presence-bots-surface-');
  surfaceToken = (await presence.server.core.surfaces!.create('telegram-bot')).token;
}, 60_000);

afterAll(async () => {
  if (process.env.BOTS_TEST_LOGS) console.log(logs.join('\n'));
  await bots?.stop();
  await tg?.close();
  await presence?.close();
  if (dataDir) removeDir(dataDir);
});

describe('a bot with a surface token', () => {
  it('moves a link made with a kept key over at the next start, replaying what it missed once', async () => {
    bots = await startBots(false);
    tg.say(olga, `/link ${(await presence.admin.links.create()).code}`);
    await botMessage(olga.id, (m) => m.text.startsWith('Linked to the account default'), 'the old-style link');
    expect(replayLinkLog(table()).links['telegram:2001']?.sealed_key).toBeTypeOf('string');
    await bots.stop();
    bots = null;

    await say('missed while the bot was down');
    paths.length = 0;
    bots = await startBots(true);
    await botMessage(olga.id, (m) => m.text === 'missed while the bot was down', 'the missed message');
    await waitFor(() => replayLinkLog(table()).links['telegram:2001']?.sealed_key === undefined, { what: 'the secret forgotten' });
    await say('after the move');
    await botMessage(olga.id, (m) => m.text === 'after the move', 'a message over the surface stream');
    expect(tg.botMessages(olga.id).filter((m) => m.text === 'missed while the bot was down')).toHaveLength(1);
  });

  it('links without any secret and reads one stream for every user, however many', async () => {
    tg.say(nina, `/link ${(await presence.admin.links.create()).code}`);
    await botMessage(nina.id, (m) => m.text.startsWith('Linked to the account default as telegram:nina'), 'the link');
    expect(table()).not.toMatch(/prs_(live|test|surface)_/);
    expect(replayLinkLog(table()).links['telegram:2002']?.sealed_key).toBeUndefined();
    await say('for both of you');
    await botMessage(nina.id, (m) => m.text === 'for both of you', 'nina told');
    await botMessage(olga.id, (m) => m.text === 'for both of you', 'olga told');
    // Since the surface start: the surface stream, and no user's own stream but the one-off replay.
    expect(paths.filter((p) => p === '/v1/surface/events').length).toBeGreaterThanOrEqual(1);
    expect(paths.filter((p) => p === '/v1/events').length).toBeLessThanOrEqual(1);
    expect(logs.join('\n')).not.toContain(surfaceToken);
  });

  it("a card is answered by acting for the user's key; a revoked key unlinks the user", async () => {
    tg.say(nina, 'swap 20 USDC for WETH');
    const card = await botMessage(
      nina.id,
      (m) => m.text.startsWith('Approval needed:') && (m.reply_markup?.inline_keyboard.flat().length ?? 0) === 2,
      'a card',
    );
    const data = card.reply_markup?.inline_keyboard.flat()[0]?.callback_data as string;
    tg.press(nina, card, data);
    await waitFor(() => card.text.startsWith('✅ Approved and executed'), { what: 'the executed card' });

    const keyId = replayLinkLog(table()).links['telegram:2002']?.key_id as string;
    await presence.admin.keys.revoke(keyId);
    await botMessage(nina.id, (m) => m.text === REVOKED, 'the revoked notice');
    await waitFor(() => replayLinkLog(table()).links['telegram:2002'] === undefined, { what: 'nina unlinked' });
  });
});
