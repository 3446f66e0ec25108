// The Discord bot split across two processes by shard (DISCORD_SHARDS=2, DISCORD_SHARD_IDS 0
// and 1), sharing one PostgreSQL bots' table and a surface token: each identifies as its own
// shard, gets only what Discord routes to it (DMs: shard 0; a server: (id >> 22) % 2), and a
// card the stream-reading process sent is answered by the process whose shard got the press.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../scripts/postgres';
import { createLogger } from '../src/log';
import { type RunningBots, runBots } from '../src/run-bots';
import { type DcMessage, type DcUser, type DiscordApi, startDiscordApi } from './helpers/discord-api';
import { type Presence, removeDir, startPresence, tempDir } from './helpers/presence';
import { waitFor } from './helpers/wait';

const TOKEN = 'loopback-discord-token.shards';
const ann: DcUser = { id: '500000000000000001', username: 'ann' };
/** (id >> 22) % 2 = 1: the server is shard 1's. */
const GUILD = String(3n << 22n);
const CHANNEL = '600000000000000001';

let presence: Presence;
let pg: ThrowawayPostgres;
let dc: DiscordApi;
let surfaceToken: string;
let databaseUrl: string;
const dirs: string[] = [];
const running: RunningBots[] = [];
const logs: string[][] = [[], []];

const startShard = async (id: number) => {
  const dir = tempDir('presence-bots-shard-');
  dirs.push(dir);
  const bots = await runBots(
    {
      presenceUrl: presence.server.url,
      dataDir: dir,
      telegram: null,
      discord: { token: TOKEN, apiRoot: dc.apiRoot, shards: { count: 2, ids: [id] } },
      surfaceToken,
      databaseUrl,
    },
    createLogger((line) => logs[id]?.push(line)),
    { client: { retries: 1 }, events: { reconnect: { baseDelayMs: 50, maxDelayMs: 300 }, restartMs: 300 }, leadRetryMs: 300 },
  );
  running.push(bots);
  return bots;
};
const leads = (id: number) => (logs[id] ?? []).join('\n').includes('this process now reads the surface stream');

beforeAll(async () => {
  presence = await startPresence();
  pg = await startPostgres();
  databaseUrl = await pg.createDatabase();
  dc = await startDiscordApi({ token: TOKEN });
  surfaceToken = (await presence.server.core.surfaces!.create('discord-shards')).token;
  // Shard 1 first, so it is the one that reads the surface stream and sends the cards.
  await startShard(1);
  await waitFor(() => leads(1), { what: 'shard 1 reading the surface stream' });
  await startShard(0);
}, 120_000);

afterAll(async () => {
  if (process.env.BOTS_TEST_LOGS) for (const l of logs) console.log(l.join('\n'));
  for (const b of running) await b.stop();
  await dc?.close();
  await presence?.close();
  await pg?.stop();
  for (const d of dirs) removeDir(d);
});

describe('Discord with 2 shards in 2 processes', () => {
  it("each process identifies as its shard; a card sent by one is answered on the other; a server is shard 1's", async () => {
    await waitFor(() => dc.identifies.length >= 2, { what: 'both shards identified' });
    expect([...dc.identifies].sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(leads(0)).toBe(false);

    // Linking by DM: shard 0's process takes it; the link is in the shared table.
    const { code } = await presence.admin.links.create();
    const slash = dc.slash(ann, 'link', [{ name: 'code', type: 3, value: code }]);
    await waitFor(() => dc.original(slash.token)?.content.startsWith('Linked to the account default'), { what: 'ann linked' });

    // The card comes from shard 1's process (the stream reader); the press is a DM interaction, shard 0's.
    const hold = await presence.admin.wallet.intent({ do: 'swap 21 USDC for WETH' });
    if (hold.status !== 'needs_confirm') throw new Error('expected a hold');
    const isMine = (m: DcMessage) => m.components.flatMap((r) => r.components)[0]?.custom_id === `cf:${hold.confirm_id}:a`;
    const card = await waitFor(() => dc.botMessages(dc.dmOf(ann.id)).find(isMine), { what: "ann's card" });
    dc.press(ann, card, `cf:${hold.confirm_id}:a`);
    await waitFor(
      () =>
        dc
          .botMessages(dc.dmOf(ann.id))
          .find((m) => m.id === card.id)
          ?.content.startsWith('✅ Approved and executed'),
      {
        what: 'the card executed',
      },
    );

    // A mention in a server on shard 1 is answered by shard 1's process.
    // The guild and then the mention go down shard 1's one gateway connection, in that order,
    // and discord.js handles its dispatches in order: the guild is known when the mention comes.
    dc.joinGuild(GUILD, CHANNEL);
    dc.post(ann, GUILD, CHANNEL, `<@${dc.bot.id}> hello`, true);
    await waitFor(() => dc.botMessages(CHANNEL).length > 0, { what: 'the answer in the server channel' });
  });
});
