// The Telegram bot after its server was restored from a backup, against the real server and a
// loopback Bot API: the server's event ids (and a surface stream's positions) go back to the
// backup's, below what the bot recorded. Both ways a bot reads events (one surface stream, or
// one stream per user's key) take the server's newest position when it answers with it, so a
// user is told what happens after the restore instead of nothing until the ids pass the old
// ones, and nothing from before the restore is told twice.
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createPresenceClient } from '@presence/client';
import { loadConfig, startServer } from '@presence/server';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log';
import { type RunningBots, runBots } from '../src/run-bots';
import { removeDir, tempDir } from './helpers/presence';
import { startTelegramApi, type TelegramApi, type TgUser } from './helpers/telegram-api';
import { waitFor } from './helpers/wait';

const TOKEN = '123456789:AAF-loopback-telegram-token-xyz';
const olga: TgUser = { id: 3001, is_bot: false, first_name: 'Olga', username: 'olga' };

const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  for (const d of dirs) removeDir(d);
});

const dir = (prefix: string) => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};

/** The server on `dataDir` (no chain: events are all this needs). */
async function serve(dataDir: string) {
  const server = await startServer({
    config: loadConfig({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_HOST: '127.0.0.1', PRESENCE_RATE_LIMIT: '100000/60s' }),
    logger: false,
    maintenanceMs: 0,
    standingMs: 0,
    chain: false,
  });
  const say = (text: string) =>
    server.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', { text, cause: 'standing:test' });
  return { server, say };
}

function scenario(withSurface: boolean) {
  return async () => {
    const tg: TelegramApi = await startTelegramApi({ token: TOKEN });
    cleanups.push(() => tg.close());
    const serverDir = dir('presence-restored-server-');
    const botsDir = dir('presence-restored-bots-');
    const backup = path.join(dir('presence-restored-backup-'), 'data');
    const logs: string[] = [];
    const startBots = (url: string, surfaceToken: string | null) =>
      runBots(
        { presenceUrl: url, dataDir: botsDir, telegram: { token: TOKEN, apiRoot: tg.url }, discord: null, surfaceToken },
        createLogger((line) => logs.push(line)),
        { pollTimeoutS: 5, client: { retries: 1 }, events: { reconnect: { baseDelayMs: 50, maxDelayMs: 300 }, restartMs: 300 } },
      );
    const told = (text: string) => tg.botMessages(olga.id).filter((m) => m.text === text);
    const toldOnce = (text: string) => waitFor(() => told(text)[0], { what: `olga told "${text}"` });

    // Linked, and told one thing; then the backup is taken (the server stopped: a copy at rest).
    let { server, say } = await serve(serverDir);
    const admin = JSON.parse(readFileSync(path.join(serverDir, 'bootstrap-keys.json'), 'utf8')).live as string;
    const surfaceToken = withSurface ? (await server.core.surfaces!.create('telegram-bot')).token : null;
    let bots: RunningBots = await startBots(server.url, surfaceToken);
    const code = (await createPresenceClient({ baseUrl: server.url, token: admin }).links.create()).code;
    tg.say(olga, `/link ${code}`);
    await waitFor(() => tg.botMessages(olga.id).find((m) => m.text.startsWith('Linked to the account default')), { what: 'the link' });
    await say('before the backup');
    await toldOnce('before the backup');
    await bots.stop();
    await server.close();
    cpSync(serverDir, backup, { recursive: true });

    // Life goes on after the backup: the bot records ids past what the backup holds.
    ({ server, say } = await serve(serverDir));
    bots = await startBots(server.url, surfaceToken);
    for (const text of ['after the backup 1', 'after the backup 2', 'after the backup 3']) await say(text);
    await toldOnce('after the backup 3');
    await bots.stop();
    await server.close();

    // The restore: the server's ids go back; the bot's records do not.
    ({ server, say } = await serve(backup));
    cleanups.push(() => server.close());
    bots = await startBots(server.url, surfaceToken);
    cleanups.push(() => bots.stop());
    await waitFor(() => logs.find((l) => l.includes("the server's events went back")), { what: 'the bot seeing the server go back' });
    await say('after the restore');
    await toldOnce('after the restore');
    await say('and after that');
    await toldOnce('and after that');
    // Nothing from before the restore told again.
    expect(told('before the backup')).toHaveLength(1);
    expect(told('after the backup 1')).toHaveLength(1);
  };
}

describe('a bot whose server was restored from a backup', () => {
  it('reading one surface stream, tells each user what happens after the restore', scenario(true), 90_000);
  it("reading each user's own stream, tells the user what happens after the restore", scenario(false), 90_000);
});
