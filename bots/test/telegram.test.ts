// The Telegram bot end to end: the real grammY client against a loopback Bot API, the real
// Presence server on its devnet behind a proxy that can take it down. One user's story, in
// order: link, talk, approve, a hold that expires, commands, long replies, 429, restart,
// an outage and finally a revoked key.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { readableSummary, readableUsdIn } from '@presence/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/log';
import { type RunningBots, runBots } from '../src/run-bots';
import { replayLinkLog } from '../src/surface/link-log';
import { LINKS_FILE } from '../src/surface/link-store';
import { UNAVAILABLE } from '../src/surface/problems';
import { NOT_LINKED, REVOKED } from '../src/surface/render';
import { addPasskey, approveWithPasskey } from './helpers/passkey';
import { type Presence, removeDir, startPresence, tempDir } from './helpers/presence';
import { startProxy } from './helpers/proxy';
import { startTelegramApi, type TelegramApi, type TgChat, type TgMessage, type TgUser } from './helpers/telegram-api';
import { waitFor } from './helpers/wait';

const TOKEN = '123456789:AAF-loopback-telegram-token-xyz';
const alice: TgUser = { id: 1001, is_bot: false, first_name: 'Alice', username: 'alice' };
const mallory: TgUser = { id: 1002, is_bot: false, first_name: 'Mallory', username: 'mallory' };
const group: TgChat = { id: -5001, type: 'group', title: 'Traders' };

let presence: Presence;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let tg: TelegramApi;
let bots: RunningBots;
let dataDir: string;
const logs: string[] = [];

/** Runs once after the next redeem succeeds on the server, before the bot reads its answer. */
let afterRedeem: (() => Promise<void>) | null = null;
const fetchWithHook: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  const hook = afterRedeem;
  if (hook && res.ok && /\/v1\/links\/[^/]+\/redeem$/.test(url)) {
    afterRedeem = null;
    await hook();
  }
  return res;
};

const startBots = () =>
  runBots(
    { presenceUrl: proxy.url, dataDir, telegram: { token: TOKEN, apiRoot: tg.url }, discord: null },
    createLogger((line) => logs.push(line)),
    {
      pollTimeoutS: 5,
      client: { retries: 1, fetch: fetchWithHook },
      events: { reconnect: { baseDelayMs: 50, maxDelayMs: 300 }, restartMs: 300 },
    },
  );

/** The newest bot message in a chat matching `test`, once it exists. */
const botMessage = (chatId: number, test: (m: TgMessage) => boolean, what = 'a bot message') =>
  waitFor(() => tg.botMessages(chatId).filter(test).at(-1), { what });
const isCard = (m: TgMessage) => m.text.startsWith('Approval needed:');
const buttonsOf = (m: TgMessage) => m.reply_markup?.inline_keyboard.flat() ?? [];
const confirmIdOf = (m: TgMessage) => /^cf:(cf_\w+):a$/.exec(buttonsOf(m)[0]?.callback_data ?? '')?.[1] as string;
const lastPresenceText = async () => (await presence.admin.messages.history({ limit: 1 })).messages.at(-1)?.text;
/** The bot's messages in a chat sent after `n` earlier ones. */
const newSince = (chatId: number, n: number) => tg.botMessages(chatId).slice(n);
/**
 * A marker for "nothing more arrives": a hold raised now, whose card the bot sends after
 * anything the events before it caused (it reads the events stream in order). Waited for in
 * every chat linked to the account; `retire` denies it and waits for every copy to show so.
 */
async function markerCard(...chatIds: number[]): Promise<{ card: TgMessage; retire(): Promise<void> }> {
  const marker = await presence.admin.wallet.intent({ do: 'swap 21 USDC for WETH' });
  if (marker.status !== 'needs_confirm') throw new Error('expected a hold');
  const cards = await Promise.all(
    chatIds.map((id) => botMessage(id, (m) => isCard(m) && confirmIdOf(m) === marker.confirm_id, 'the marker card')),
  );
  return {
    card: cards[0] as TgMessage,
    async retire() {
      await presence.admin.confirm.deny(marker.confirm_id);
      await waitFor(() => cards.every((c) => c.text.startsWith('❌ Denied')), { what: 'the marker cards retired' });
    },
  };
}

beforeAll(async () => {
  presence = await startPresence();
  proxy = await startProxy(presence.server.url);
  tg = await startTelegramApi({ token: TOKEN });
  dataDir = tempDir('presence-bots-tg-');
  bots = await startBots();
}, 60_000);

afterAll(async () => {
  if (process.env.BOTS_TEST_LOGS) console.log(logs.join('\n'));
  await bots?.stop();
  await tg?.close();
  await proxy?.close();
  await presence?.close();
  if (dataDir) removeDir(dataDir);
});

describe('Telegram bot', () => {
  it('/start explains linking; unknown commands and unlinked users get a helpful answer', async () => {
    expect(tg.calls.some((c) => c.method === 'setMyCommands')).toBe(true);
    tg.say(alice, '/start');
    await botMessage(alice.id, (m) => m.text.includes('/link CODE') && m.text.includes('presence link'), 'the /start help');
    tg.say(alice, '/frobnicate');
    await botMessage(alice.id, (m) => m.text.startsWith("I don't know /frobnicate"), 'the unknown-command answer');
    tg.say(alice, 'hello');
    await botMessage(alice.id, (m) => m.text === NOT_LINKED, 'the not-linked answer');
    tg.say(alice, '/link ZZZZ2222');
    await botMessage(alice.id, (m) => m.text.startsWith('That code is unknown, used or expired'), 'the bad-code answer');
  });

  it('/link CODE links with a one-time code; the key is kept sealed and the code message is removed', async () => {
    const { code } = await presence.admin.links.create();
    const sent = tg.say(alice, `/link ${code}`);
    await botMessage(alice.id, (m) => m.text.startsWith('Linked to the account default as telegram:alice'), 'the link confirmation');
    await waitFor(() => tg.message(alice.id, sent)?.deleted, { what: 'the /link message removed' });
    const keys = await presence.admin.keys.list();
    expect(keys.keys.some((k) => k.name === 'telegram:alice')).toBe(true);
    const file = path.join(dataDir, LINKS_FILE);
    const table = readFileSync(file, 'utf8');
    expect(table).toContain('"telegram:1001"');
    expect(table).not.toMatch(/prs_(live|test)_/);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'links.key')).mode & 0o777).toBe(0o600);
    // Linking is for private chats only: a code typed in a group (even a bare /link, which
    // may not be addressed to us) is voided, so nobody who saw it can use it, and deleted.
    const liveKeys = async () => (await presence.admin.keys.list()).keys.filter((k) => k.state === 'active').map((k) => k.id);
    const liveBefore = await liveKeys();
    const { code: seen } = await presence.admin.links.create();
    const inGroup = tg.say(mallory, `/link ${seen}`, group);
    const voided = await botMessage(group.id, (m) => m.text.includes('so I have voided it'), 'the voided answer');
    expect(voided.text).toMatch(/^For your privacy, link in a private chat with me\..* I deleted your message\./);
    expect(voided.text).not.toContain(seen);
    expect(tg.message(group.id, inGroup)?.deleted).toBe(true);
    await expect(presence.admin.links.redeem(seen, { surface: 'telegram', user_id: '1', name: 'eve' })).rejects.toMatchObject({
      status: 404,
    });
    const made = (await presence.admin.keys.list()).keys.filter((k) => k.name === 'telegram:voided-mallory');
    expect(made.map((k) => k.state)).toEqual(['revoked']);
    expect(await liveKeys()).toEqual(liveBefore);
    // A code that no longer works is said to be so (and deleted all the same).
    const addressed = tg.say(mallory, '/link@presence_test_bot ABCDEFGH', group);
    await waitFor(() => tg.message(group.id, addressed)?.deleted, { what: 'the addressed /link removed' });
    await botMessage(group.id, (m) => m.text.includes('That code is unknown, used or expired'), 'the spent-code answer');
    expect(logs.join('\n')).not.toContain(seen);
  });

  it('relays a question and streams the reply into one message, edited at most once a second', async () => {
    const before = tg.botMessages(alice.id).length;
    tg.say(alice, 'how deep is WETH-USDC');
    const reply = await waitFor(
      async () => {
        const want = await lastPresenceText();
        const m = newSince(alice.id, before)[0];
        return want !== undefined && m?.text === want && m;
      },
      { what: 'the whole reply on screen' },
    );
    expect(reply.text).toMatch(/WETH-USDC/);
    // Streamed: it first showed a beginning of the reply, then was edited to the whole.
    expect(reply.history.length).toBeGreaterThan(1);
    expect(reply.text.startsWith((reply.history[0] as string).trimEnd())).toBe(true);
    expect(newSince(alice.id, before)).toHaveLength(1);
    const ops = tg.calls.filter(
      (c) => (c.method === 'editMessageText' || c.method === 'sendMessage') && Number(c.payload.chat_id) === alice.id && c.status === 200,
    );
    const last = ops.slice(-reply.history.length);
    for (let i = 1; i < last.length; i++) expect((last[i]?.at ?? 0) - (last[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('a swap over confirm_over is held with [Approve] [Deny]; Approve executes and the card shows the tx', async () => {
    tg.say(alice, 'swap 20 USDC for WETH');
    const card = await botMessage(alice.id, (m) => isCard(m) && buttonsOf(m).length === 2, 'a confirmation card');
    expect(card.text).toMatch(/^Approval needed: swap 20 USDC for about [\d.]+ WETH \(at least [\d.]+ WETH\)$/m);
    expect(card.text).toContain('Amount: 20 USDC');
    expect(card.text).toMatch(/Time left: (10 min|9 min \d+ s)/);
    expect(buttonsOf(card).map((b) => b.text)).toEqual(['Approve', 'Deny']);
    // The reply that explains the hold comes first, then its card.
    const shown = tg.botMessages(alice.id);
    expect(shown[shown.indexOf(card) - 1]?.text).toMatch(/so I have held it/);
    const confirmId = confirmIdOf(card);
    expect(buttonsOf(card)[1]?.callback_data).toBe(`cf:${confirmId}:d`);
    const held = await presence.admin.confirm.list({ status: 'held' });
    expect(held.confirmations.map((c) => c.confirm_id)).toContain(confirmId);

    const cb = tg.press(alice, card, `cf:${confirmId}:a`);
    await waitFor(() => card.text.startsWith('✅ Approved and executed'), { what: 'the executed card' });
    expect(buttonsOf(card)).toEqual([]);
    expect(tg.callbackAnswers(cb)[0]?.payload.text).toBe('Approving…');
    const done = (await presence.admin.confirm.list()).confirmations.find((c) => c.confirm_id === confirmId);
    expect(done?.status).toBe('executed');
    expect(card.text).toContain(`Tx ${done?.tx} in block ${done?.block}`);
    // The presence says so on its own too (a `message` event, delivered to the private chat).
    await botMessage(alice.id, (m) => m.text.includes('you asked: "swap 20 USDC for WETH"'), 'the resume message');
  });

  it('in a group it answers only when mentioned; only the owner may press; a hold left alone expires and loses its buttons', async () => {
    tg.say(alice, 'hello everyone', group);
    tg.say(alice, '@presence_test_bot swap 20 USDC for WETH', group);
    const card = await botMessage(group.id, (m) => isCard(m) && buttonsOf(m).length === 2, 'a card in the group');
    const confirmId = confirmIdOf(card);
    const cb = tg.press(mallory, card, `cf:${confirmId}:a`);
    await waitFor(() => tg.callbackAnswers(cb)[0], { what: 'the refusal' });
    expect(tg.callbackAnswers(cb)[0]?.payload).toMatchObject({ text: 'Sorry, only alice can answer this request.', show_alert: true });
    expect(buttonsOf(card)).toHaveLength(2);
    expect((await presence.admin.confirm.list({ status: 'held' })).confirmations.map((c) => c.confirm_id)).toContain(confirmId);

    await presence.expireHolds();
    await waitFor(() => card.text.startsWith('⌛ Expired'), { what: 'the expired card' });
    expect(buttonsOf(card)).toEqual([]);
    // The mention got a reply and the card; "hello everyone" got nothing (the private-only answer came before).
    const texts = tg.botMessages(group.id).map((m) => m.text);
    expect(texts.filter((t) => !t.startsWith('For your privacy'))).toHaveLength(2);
  });

  it('in a group, a bare command is not answered (it may be for another bot); /cmd@bot and a reply to the bot are', async () => {
    const before = tg.botMessages(group.id).length;
    tg.say(alice, '/wallet', group);
    tg.say(alice, '/pending@presence_test_bot', group);
    const pending = await botMessage(
      group.id,
      (m) => /^(Nothing is waiting|Waiting for your approval)/.test(m.text),
      'the /pending@bot answer',
    );
    const reply = { message_id: pending.message_id, date: Math.floor(Date.now() / 1000), chat: group, from: tg.bot, text: pending.text };
    tg.say(alice, '/wallet', group, { reply_to_message: reply });
    await botMessage(group.id, (m) => m.text.startsWith('Wallet '), 'the wallet, asked in a reply to the bot');
    // The bare /wallet came first, asking the same: had it been answered, its answer would have
    // come no later than this one, which came after it (the marker).
    const wallets = newSince(group.id, before).filter((m) => m.text.startsWith('Wallet '));
    expect(wallets).toHaveLength(1);
  });

  it('/wallet and /pending; a card answered from /pending retires every copy', async () => {
    const wallet = await presence.admin.wallet.get();
    tg.say(alice, '/wallet');
    const w = await botMessage(alice.id, (m) => m.text.startsWith('Wallet '), 'the wallet');
    expect(w.text).toContain(wallet.address);
    expect(w.text).toContain(`Total: ${readableUsdIn(wallet.total_usd)}`); // grouped, as chat writes it

    const intent = await presence.admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
    if (intent.status !== 'needs_confirm') throw new Error('expected a hold');
    const first = await botMessage(alice.id, (m) => isCard(m) && confirmIdOf(m) === intent.confirm_id, 'the card from the event');
    tg.say(alice, '/pending');
    await botMessage(alice.id, (m) => m.text.startsWith('Waiting for your approval (1)'), 'the pending list');
    const second = await botMessage(alice.id, (m) => isCard(m) && confirmIdOf(m) === intent.confirm_id && m !== first, 'a second card');
    tg.press(alice, second, `cf:${intent.confirm_id}:d`);
    await waitFor(() => first.text.startsWith('❌ Denied') && second.text.startsWith('❌ Denied'), { what: 'both cards denied' });
    expect([buttonsOf(first), buttonsOf(second)]).toEqual([[], []]);
  });

  it('an approval blocked by a tightened policy says so and keeps the buttons', async () => {
    const intent = await presence.admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
    if (intent.status !== 'needs_confirm') throw new Error('expected a hold');
    const card = await botMessage(alice.id, (m) => isCard(m) && confirmIdOf(m) === intent.confirm_id, 'the card');
    const { version: _v, updated_at: _u, ...policy } = await presence.admin.wallet.policy.get();
    await presence.admin.wallet.policy.set({ ...policy, per_tx_cap: '15 USD' });
    try {
      tg.press(alice, card, `cf:${intent.confirm_id}:a`);
      await waitFor(() => card.text.includes('🚫 Blocked by policy'), { what: 'the blocked card' });
      expect(card.text).toMatch(/^Approval needed: swap 20 USDC/);
      expect(buttonsOf(card)).toHaveLength(2);
    } finally {
      await presence.admin.wallet.policy.set(policy);
    }
    tg.press(alice, card, `cf:${intent.confirm_id}:d`);
    await waitFor(() => card.text.startsWith('❌ Denied'), { what: 'the denied card' });
  });

  it('a hold over passkey_over shows Approve as a link to its page beside the Deny button, and says why', async () => {
    await addPasskey(presence);
    const { version: _v, updated_at: _u, ...policy } = await presence.admin.wallet.policy.get();
    await presence.admin.wallet.policy.set({ ...policy, passkey_over: '15 USD' });
    try {
      const intent = await presence.admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
      if (intent.status !== 'needs_confirm' || !intent.approve_url) throw new Error('expected a hold with an approve link');
      const card = await botMessage(
        alice.id,
        (m) => isCard(m) && m.text.includes(readableSummary(intent.summary)) && buttonsOf(m).length === 2,
        'the card',
      );
      expect(buttonsOf(card)).toEqual([
        { text: 'Approve', url: intent.approve_url },
        { text: 'Deny', callback_data: `cf:${intent.confirm_id}:d` },
      ]);
      expect(card.text).toContain('over your passkey threshold: Approve opens a page where your device confirms it with a passkey');
      // Approved on the page with the passkey: the card retires as for any approval.
      await approveWithPasskey(presence, intent.approve_url);
      await waitFor(() => card.text.startsWith('✅ Approved and executed'), { what: 'the executed card' });
      expect(buttonsOf(card)).toEqual([]);
    } finally {
      await presence.admin.wallet.policy.set(policy);
    }
  });

  it('a reply over 4096 characters arrives split into several messages', async () => {
    for (let i = 0; i < 11; i++) await presence.admin.memory.pin({ key: `topic:long-${i}`, note: `${'note '.repeat(89)}end ${i}` });
    const before = tg.botMessages(alice.id).length;
    tg.say(alice, 'what do you remember');
    const text = await waitFor(
      async () => {
        const t = await lastPresenceText();
        return t?.startsWith('Pinned:') ? t : undefined;
      },
      { what: 'the long reply in the thread' },
    );
    expect(text.length).toBeGreaterThan(4096);
    const parts = await waitFor(
      () => {
        const got = newSince(alice.id, before).map((m) => m.text);
        return got.join(' ').replace(/\s+/g, ' ') === text.replace(/\s+/g, ' ') && got;
      },
      { what: 'the split reply' },
    );
    expect(parts.length).toBe(2);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(4096);
  });

  it('honours a 429 retry_after from Telegram and sends once', async () => {
    const before = tg.botMessages(alice.id).length;
    const from = tg.calls.length;
    tg.failNext('sendMessage', 1);
    tg.say(alice, '/start');
    await botMessage(alice.id, (m) => m.text.includes('linked to the account default'), 'the help after a 429');
    const sends = tg.calls.slice(from).filter((c) => c.method === 'sendMessage');
    expect(sends.map((c) => c.status)).toEqual([429, 200]);
    expect((sends[1]?.at ?? 0) - (sends[0]?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(newSince(alice.id, before)).toHaveLength(1);
  });

  it('an event between redeeming the code and the first subscription is delivered, once', async () => {
    const dave: TgUser = { id: 1004, is_bot: false, first_name: 'Dave', username: 'dave' };
    const { code } = await presence.admin.links.create();
    let held = '';
    afterRedeem = async () => {
      const intent = await presence.admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
      if (intent.status !== 'needs_confirm') throw new Error('expected a hold');
      held = intent.confirm_id;
    };
    tg.say(dave, `/link ${code}`);
    await botMessage(dave.id, (m) => m.text.startsWith('Linked to the account default as telegram:dave'), 'the link confirmation');
    expect(held).not.toBe('');
    const card = await botMessage(dave.id, (m) => isCard(m) && confirmIdOf(m) === held, 'the card raised before the first subscription');
    const alicesCard = await botMessage(alice.id, (m) => isCard(m) && confirmIdOf(m) === held, "alice's card for it");
    const marker = await markerCard(dave.id, alice.id);
    expect(tg.botMessages(dave.id).filter(isCard)).toEqual([card, marker.card]);
    await marker.retire();
    await presence.admin.confirm.deny(held);
    await waitFor(() => card.text.startsWith('❌ Denied') && alicesCard.text.startsWith('❌ Denied'), { what: 'the cards retired' });
    tg.say(dave, '/unlink');
    await botMessage(dave.id, (m) => m.text.startsWith('Unlinked.'), 'the unlink answer');
  });

  it('a user linked just before a restart, with no event handled yet, gets what happened while the bot was down, once', async () => {
    const carol: TgUser = { id: 1003, is_bot: false, first_name: 'Carol', username: 'carol' };
    const { code } = await presence.admin.links.create();
    tg.say(carol, `/link ${code}`);
    await botMessage(carol.id, (m) => m.text.startsWith('Linked to the account default as telegram:carol'), 'the link confirmation');
    // The first stream is live; its opening cursor is saved at once, though no event was handled.
    const cursor = () => replayLinkLog(readFileSync(path.join(dataDir, LINKS_FILE), 'utf8')).links['telegram:1003']?.last_event_id;
    await waitFor(() => typeof cursor() === 'number', { what: 'the live cursor saved' });
    await bots.stop();
    const intent = await presence.admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
    if (intent.status !== 'needs_confirm') throw new Error('expected a hold');
    bots = await startBots();
    const card = await botMessage(carol.id, (m) => isCard(m) && confirmIdOf(m) === intent.confirm_id, 'the card raised while down');
    const marker = await markerCard(carol.id, alice.id);
    expect(tg.botMessages(carol.id).filter(isCard)).toEqual([card, marker.card]);
    await marker.retire();
    await presence.admin.confirm.deny(intent.confirm_id);
    await waitFor(() => card.text.startsWith('❌ Denied'), { what: 'the card retired by an event' });
    tg.say(carol, '/unlink');
    await botMessage(carol.id, (m) => m.text.startsWith('Unlinked.'), 'the unlink answer');
  });

  it('a restart neither repeats nor drops a notification', async () => {
    await bots.stop();
    const before = tg.botMessages(alice.id).map((m) => m.text);
    const intent = await presence.admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
    if (intent.status !== 'needs_confirm') throw new Error('expected a hold');
    bots = await startBots();
    const card = await botMessage(alice.id, (m) => isCard(m) && confirmIdOf(m) === intent.confirm_id, 'the card raised while down');
    const marker = await markerCard(alice.id);
    expect(tg.botMessages(alice.id).slice(before.length)).toEqual([card, marker.card]);
    await marker.retire();
    // Answered elsewhere (the CLI, say): the event retires the buttons.
    await presence.admin.confirm.deny(intent.confirm_id);
    await waitFor(() => card.text.startsWith('❌ Denied'), { what: 'the card retired by an event' });
    expect(buttonsOf(card)).toEqual([]);
  });

  it('while Presence is down it says so; once back it answers again', async () => {
    proxy.down();
    tg.say(alice, 'what do I hold');
    await botMessage(alice.id, (m) => m.text === UNAVAILABLE, 'the unavailable answer');
    proxy.up();
    const before = tg.botMessages(alice.id).length;
    tg.say(alice, 'what do I hold');
    await waitFor(() => newSince(alice.id, before).some((m) => m.text.includes('USD')), { what: 'an answer after the outage' });
  });

  it('a revoked key unlinks the user with a message', async () => {
    const key = (await presence.admin.keys.list()).keys.find((k) => k.name === 'telegram:alice');
    await presence.admin.keys.revoke(key?.id as string);
    await botMessage(alice.id, (m) => m.text === REVOKED, 'the revoked notice');
    // Off the disk too: the change log is compacted within a second of an unlink.
    await waitFor(() => !readFileSync(path.join(dataDir, LINKS_FILE), 'utf8').includes('"telegram:1001"'), {
      what: 'the link gone from the file',
    });
    tg.say(alice, 'hello again');
    await waitFor(() => tg.botMessages(alice.id).at(-1)?.text === NOT_LINKED, { what: 'the not-linked answer' });
  });

  it('/unlink revokes the key on the server and forgets it', async () => {
    const { code } = await presence.admin.links.create();
    tg.say(mallory, `/link ${code}`);
    await botMessage(mallory.id, (m) => m.text.startsWith('Linked to the account default as telegram:mallory'), 'the link confirmation');
    tg.say(mallory, '/unlink');
    await botMessage(mallory.id, (m) => m.text.startsWith('Unlinked. The key telegram:mallory'), 'the unlink answer');
    const key = (await presence.admin.keys.list()).keys.find((k) => k.name === 'telegram:mallory');
    expect(key?.state).toBe('revoked');
    // Off the disk too: the change log is compacted within a second of an unlink.
    await waitFor(() => !readFileSync(path.join(dataDir, LINKS_FILE), 'utf8').includes('"telegram:1002"'), {
      what: 'the link gone from the file',
    });
  });

  it('never shows or logs a secret, and calls no method the loopback lacks', () => {
    const all = [...tg.botMessages(alice.id), ...tg.botMessages(group.id)].flatMap((m) => m.history).join('\n');
    expect(all).not.toMatch(/prs_(live|test)_/);
    const logged = logs.join('\n');
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toMatch(/prs_(live|test)_/);
    expect(tg.unknown).toEqual([]);
  });
});
