// The Discord bot end to end: the real discord.js client against a loopback REST + gateway,
// the real Presence server on its devnet. Slash commands, DMs, streamed edits, buttons in
// action rows, owner-only presses, expiry, long replies, restart and a revoked key.
import { readableSummary } from '@presence/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log';
import { type RunningBots, runBots } from '../src/run-bots';
import { UNAVAILABLE } from '../src/surface/problems';
import { NOT_LINKED, REVOKED } from '../src/surface/render';
import { type DcMessage, type DcUser, type DiscordApi, MESSAGE_CONTENT, PRIVILEGED_INTENTS, startDiscordApi } from './helpers/discord-api';
import { addPasskey } from './helpers/passkey';
import { type Presence, removeDir, startPresence, tempDir } from './helpers/presence';
import { startProxy } from './helpers/proxy';
import { waitFor } from './helpers/wait';

const TOKEN = 'MTAwMDAw.loopback-discord-token.abcdefghijklmnop';
const bob: DcUser = { id: '300000000000000001', username: 'bob', global_name: 'Bob' };
const mallory: DcUser = { id: '300000000000000002', username: 'mallory' };
const guild = '400000000000000001';
const channel = '400000000000000002';

let presence: Presence;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let dc: DiscordApi;
let bots: RunningBots;
let dataDir: string;
const logs: string[] = [];

const startBots = () =>
  runBots(
    { presenceUrl: proxy.url, dataDir, telegram: null, discord: { token: TOKEN, apiRoot: dc.apiRoot } },
    createLogger((line) => logs.push(line)),
    { client: { retries: 1 }, events: { reconnect: { baseDelayMs: 50, maxDelayMs: 300 }, restartMs: 300 } },
  );

const isCard = (m: DcMessage) => m.content.startsWith('Approval needed:');
const buttonsOf = (m: DcMessage) => m.components.flatMap((r) => r.components);
const confirmIdOf = (m: DcMessage) => /^cf:(cf_\w+):a$/.exec(buttonsOf(m)[0]?.custom_id ?? '')?.[1] as string;
const lastPresenceText = async () => (await presence.admin.messages.history({ limit: 1 })).messages.at(-1)?.text;
const bobDm = () => dc.dmOf(bob.id);
const botMessage = (test: (m: DcMessage) => boolean, what: string) => waitFor(() => dc.botMessages(bobDm()).filter(test).at(-1), { what });
/** The deferred answer to a slash command, once edited. */
const slashAnswer = (token: string, what: string) =>
  waitFor(
    () => {
      const m = dc.original(token);
      return m && m.edits > 0 && m;
    },
    { what },
  );

beforeAll(async () => {
  presence = await startPresence();
  proxy = await startProxy(presence.server.url);
  dc = await startDiscordApi({ token: TOKEN });
  dataDir = tempDir('presence-bots-dc-');
  bots = await startBots();
}, 60_000);

afterAll(async () => {
  if (process.env.BOTS_TEST_LOGS) console.log(logs.join('\n'));
  await bots?.stop();
  await dc?.close();
  await proxy?.close();
  await presence?.close();
  if (dataDir) removeDir(dataDir);
});

describe('Discord bot', () => {
  it('identifies with the DM and server-message intents, no privileged one, and registers the slash commands', () => {
    const intents = Number(dc.identified?.intents);
    expect(intents & (1 << 12)).toBeTruthy(); // DIRECT_MESSAGES
    expect(intents & (1 << 9)).toBeTruthy(); // GUILD_MESSAGES (mentions in server channels)
    expect(intents & MESSAGE_CONTENT).toBe(0);
    expect(intents & PRIVILEGED_INTENTS).toBe(0);
    expect(dc.commands.map((c) => c.name)).toEqual(['link', 'unlink', 'wallet', 'pending']);
    const link = dc.commands.find((c) => c.name === 'link') as { options: { name: string; required: boolean }[] };
    expect(link.options).toEqual([expect.objectContaining({ name: 'code', required: true })]);
  });

  it('an unlinked user is told how to link; /link is deferred at once, then answered', async () => {
    dc.dm(bob, 'hello');
    await botMessage((m) => m.content === NOT_LINKED, 'the not-linked answer');
    const { code } = await presence.admin.links.create();
    const i = dc.slash(bob, 'link', [{ name: 'code', type: 3, value: code }]);
    const answer = await slashAnswer(i.token, 'the /link answer');
    expect(answer.content).toMatch(/^Linked to the account default as discord:Bob/);
    expect(dc.callbackOf(i.id)).toMatchObject({ type: 5, data: { flags: 64 } });
    const deferred = dc.calls.find((c) => c.path.startsWith(`/interactions/${i.id}/`));
    const edited = dc.calls.find((c) => c.path.endsWith(`/${i.token}/messages/@original`));
    expect(deferred && edited && deferred.at <= edited.at).toBe(true);
    expect((await presence.admin.keys.list()).keys.some((k) => k.name === 'discord:Bob')).toBe(true);
  });

  it('relays a DM and streams the reply by editing one message', async () => {
    const before = dc.botMessages(bobDm()).length;
    dc.dm(bob, 'how deep is WETH-USDC');
    const reply = await waitFor(
      async () => {
        const want = await lastPresenceText();
        const m = dc.botMessages(bobDm())[before];
        return want !== undefined && m?.content === want && m;
      },
      { what: 'the whole reply on screen' },
    );
    expect(reply.history.length).toBeGreaterThan(1);
    expect(dc.botMessages(bobDm())).toHaveLength(before + 1);
  });

  it('in a server channel it answers only when mentioned', async () => {
    dc.joinGuild(guild, channel);
    dc.post(bob, guild, channel, 'nobody asked the bot', false);
    dc.post(bob, guild, channel, `<@${dc.bot.id}> how deep is WETH-DAI`, true);
    const reply = await waitFor(
      async () => {
        const want = await lastPresenceText();
        const m = dc.botMessages(channel)[0];
        return want?.includes('WETH-DAI') && m?.content === want && m;
      },
      { what: 'the reply in the channel' },
    );
    expect(reply.content).toContain('WETH-DAI');
    expect(dc.botMessages(channel)).toHaveLength(1);
    const thread = (await presence.admin.messages.history({ limit: 10 })).messages.map((m) => m.text);
    expect(thread).not.toContain('nobody asked the bot');
  });

  it('a /link CODE in a server channel voids the code, so nobody who saw it can use it', async () => {
    const liveKeys = async () => (await presence.admin.keys.list()).keys.filter((k) => k.state === 'active').map((k) => k.id);
    const liveBefore = await liveKeys();
    const { code } = await presence.admin.links.create();
    dc.post(mallory, guild, channel, `<@${dc.bot.id}> /link ${code}`, true);
    const answer = await waitFor(() => dc.botMessages(channel).find((m) => m.content.includes('so I have voided it')), {
      what: 'the voided answer',
    });
    // The bot cannot delete others' messages here: it says the code is void, not that it deleted it.
    expect(answer.content).toMatch(/^For your privacy, link in a private chat with me\./);
    expect(answer.content).not.toContain('I deleted');
    expect(answer.content).not.toContain(code);
    await expect(presence.admin.links.redeem(code, { surface: 'discord', user_id: '1', name: 'eve' })).rejects.toMatchObject({
      status: 404,
    });
    const made = (await presence.admin.keys.list()).keys.filter((k) => k.name === 'discord:voided-mallory');
    expect(made.map((k) => k.state)).toEqual(['revoked']);
    expect(await liveKeys()).toEqual(liveBefore);
    expect(logs.join('\n')).not.toContain(code);
  });

  it('a held swap shows buttons; another user cannot press them; Approve executes and shows the tx', async () => {
    dc.dm(bob, 'swap 20 USDC for WETH');
    const card = await botMessage((m) => isCard(m) && buttonsOf(m).length === 2, 'a confirmation card');
    expect(card.content).toContain('Amount: 20 USDC');
    const confirmId = confirmIdOf(card);
    // The reply that explains the hold comes first, then its card.
    const shown = dc.botMessages(bobDm());
    expect(shown[shown.indexOf(card) - 1]?.content).toMatch(/so I have held it/);
    expect(buttonsOf(card).map((b) => [b.label, b.style, b.custom_id])).toEqual([
      ['Approve', 3, `cf:${confirmId}:a`],
      ['Deny', 4, `cf:${confirmId}:d`],
    ]);

    const refused = dc.press(mallory, card, `cf:${confirmId}:a`);
    await waitFor(() => dc.callbackOf(refused.id), { what: 'the refusal' });
    expect(dc.callbackOf(refused.id)).toMatchObject({ type: 4, data: { content: 'Sorry, only Bob can answer this request.', flags: 64 } });
    expect(buttonsOf(card)).toHaveLength(2);

    const pressed = dc.press(bob, card, `cf:${confirmId}:a`);
    await waitFor(() => card.content.startsWith('✅ Approved and executed'), { what: 'the executed card' });
    expect(dc.callbackOf(pressed.id)?.type).toBe(6); // deferred update, sent before the confirm call
    expect(buttonsOf(card)).toEqual([]);
    const done = (await presence.admin.confirm.list()).confirmations.find((c) => c.confirm_id === confirmId);
    expect(done?.status).toBe('executed');
    expect(card.content).toContain(`Tx ${done?.tx} in block ${done?.block}`);
  });

  it('a hold over passkey_over shows Approve as a link button to its page beside Deny, and says why', async () => {
    await addPasskey(presence);
    const { version: _v, updated_at: _u, ...policy } = await presence.admin.wallet.policy.get();
    await presence.admin.wallet.policy.set({ ...policy, passkey_over: '15 USD' });
    try {
      const intent = await presence.admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
      if (intent.status !== 'needs_confirm' || !intent.approve_url) throw new Error('expected a hold with an approve link');
      const card = await botMessage(
        (m) => isCard(m) && m.content.includes(readableSummary(intent.summary)) && buttonsOf(m).length === 2,
        'the card',
      );
      // Style 5 is a link button: it opens the URL, and Discord sends no interaction for it.
      expect(buttonsOf(card)).toEqual([
        { type: 2, style: 5, label: 'Approve', url: intent.approve_url },
        { type: 2, style: 4, label: 'Deny', custom_id: `cf:${intent.confirm_id}:d` },
      ]);
      expect(card.content).toContain('over your passkey threshold');
      const denied = dc.press(bob, card, `cf:${intent.confirm_id}:d`);
      await waitFor(() => card.content.startsWith('❌ Denied'), { what: 'the denied card' });
      expect(dc.callbackOf(denied.id)?.type).toBe(6);
    } finally {
      await presence.admin.wallet.policy.set(policy);
    }
  });

  it('a second hold left alone expires and its buttons go away', async () => {
    const before = dc.botMessages(bobDm()).length;
    dc.dm(bob, 'swap 20 USDC for WETH');
    const card = await waitFor(() => dc.botMessages(bobDm()).slice(before).find(isCard), { what: 'a second card' });
    await presence.expireHolds();
    await waitFor(() => card.content.startsWith('⌛ Expired'), { what: 'the expired card' });
    expect(buttonsOf(card)).toEqual([]);
  });

  it('/wallet and /pending answer through the deferred reply; unknown text commands get help', async () => {
    const wallet = await presence.admin.wallet.get();
    const w = dc.slash(bob, 'wallet');
    expect((await slashAnswer(w.token, 'the wallet')).content).toContain(wallet.address);
    const p = dc.slash(bob, 'pending');
    expect((await slashAnswer(p.token, 'the pending list')).content).toBe('Nothing is waiting for your approval.');
    dc.dm(bob, '/frobnicate');
    await botMessage((m) => m.content.startsWith("I don't know /frobnicate"), 'the unknown-command answer');
  });

  it('a reply over 2000 characters arrives split', async () => {
    for (let i = 0; i < 5; i++) await presence.admin.memory.pin({ key: `topic:dc-${i}`, note: `${'word '.repeat(89)}end ${i}` });
    const before = dc.botMessages(bobDm()).length;
    dc.dm(bob, 'what do you remember');
    const text = await waitFor(
      async () => {
        const t = await lastPresenceText();
        return t?.startsWith('Pinned:') ? t : undefined;
      },
      { what: 'the long reply' },
    );
    expect(text.length).toBeGreaterThan(2000);
    const parts = await waitFor(
      () => {
        const got = dc
          .botMessages(bobDm())
          .slice(before)
          .map((m) => m.content);
        return got.join(' ').replace(/\s+/g, ' ') === text.replace(/\s+/g, ' ') && got;
      },
      { what: 'the split reply' },
    );
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(2000);
  });

  it('a restart neither repeats nor drops a notification', async () => {
    await bots.stop();
    const before = dc.botMessages(bobDm()).length;
    const intent = await presence.admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
    if (intent.status !== 'needs_confirm') throw new Error('expected a hold');
    bots = await startBots();
    const card = await botMessage((m) => isCard(m) && confirmIdOf(m) === intent.confirm_id, 'the card raised while down');
    // A marker: a hold raised now, whose card the bot sends after anything the events before
    // it caused (it reads the events stream in order).
    const marker = await presence.admin.wallet.intent({ do: 'swap 21 USDC for WETH' });
    if (marker.status !== 'needs_confirm') throw new Error('expected a hold');
    const markerCard = await botMessage((m) => isCard(m) && confirmIdOf(m) === marker.confirm_id, 'the marker card');
    expect(dc.botMessages(bobDm()).slice(before)).toEqual([card, markerCard]);
    await presence.admin.confirm.deny(marker.confirm_id);
    await waitFor(() => markerCard.content.startsWith('❌ Denied'), { what: 'the marker card retired' });
    await presence.admin.confirm.deny(intent.confirm_id);
    await waitFor(() => card.content.startsWith('❌ Denied'), { what: 'the card retired by an event' });
    expect(buttonsOf(card)).toEqual([]);
  });

  it('while Presence is down it says so; once back it answers again', async () => {
    proxy.down();
    dc.dm(bob, 'what do I hold');
    await botMessage((m) => m.content === UNAVAILABLE, 'the unavailable answer');
    proxy.up();
    const before = dc.botMessages(bobDm()).length;
    dc.dm(bob, 'what do I hold');
    await waitFor(
      () =>
        dc
          .botMessages(bobDm())
          .slice(before)
          .some((m) => m.content.includes('USD')),
      { what: 'an answer after the outage' },
    );
  });

  it("Discord's 429 (retry_after in the body and Retry-After) is waited out by discord.js; the message lands once", async () => {
    const route = /^\/channels\/\d+\/messages$/;
    const before = dc.botMessages(bobDm()).length;
    const from = dc.calls.length;
    dc.failNext('POST', route, 1);
    dc.dm(bob, '/frobnicate');
    const answer = await botMessage(
      (m) => m.content.startsWith("I don't know /frobnicate") && dc.botMessages(bobDm()).indexOf(m) >= before,
      'the answer after a 429',
    );
    // A marker: another message, answered after the first; a second post of the first answer
    // (the 429 retried twice) would have come before it.
    dc.dm(bob, '/defenestrate');
    const marker = await botMessage(
      (m) => m.content.startsWith("I don't know /defenestrate") && dc.botMessages(bobDm()).indexOf(m) >= before,
      'the marker answer',
    );
    const posts = dc.calls.slice(from).filter((c) => c.method === 'POST' && route.test(c.path));
    expect(posts.map((c) => c.status)).toEqual([429, 200, 200]);
    expect((posts[1]?.at ?? 0) - (posts[0]?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(dc.botMessages(bobDm()).slice(before)).toEqual([answer, marker]);
  });

  it('a revoked key unlinks the user with a message', async () => {
    const key = (await presence.admin.keys.list()).keys.find((k) => k.name === 'discord:Bob');
    await presence.admin.keys.revoke(key?.id as string);
    await botMessage((m) => m.content === REVOKED, 'the revoked notice');
    const i = dc.slash(bob, 'wallet');
    expect((await slashAnswer(i.token, 'the wallet after unlinking')).content).toBe(NOT_LINKED);
  });

  it('never shows or logs a secret and calls no route the loopback lacks', () => {
    const shown = dc
      .botMessages(bobDm())
      .flatMap((m) => m.history)
      .join('\n');
    expect(shown).not.toMatch(/prs_(live|test)_/);
    const logged = logs.join('\n');
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toMatch(/prs_(live|test)_/);
    expect(dc.unknown).toEqual([]);
  });
});
