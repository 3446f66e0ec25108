// Red-team case 6, replayed against a real server on the devnet (red-team-postgres.test.ts runs
// it on PostgreSQL): the thread keeps to scopes. A talk-only key of the account reads, through
// GET /v1/messages, the replies made for a fuller key only redacted (naming the scope), and a
// `wallet:read` standing intent's message reaches its events stream redacted too — and a
// surface's stream, where one frame carries it whole for a full link and redacted for a
// talk-only link of the same account (and never whole when no link may read it).
import { readableUsd } from '@presence/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, openStream, removeDir, startTestServer, type TestServer } from './harness';

const clock = createManualClock(Date.parse('2026-06-01T08:59:00Z'));
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ chain: true, clock });
});
afterAll(async () => {
  await s?.close();
  if (s) removeDir(s.dataDir);
});

/** A surface token with a link of the default account per user (`undefined`: the linking key's own scopes). */
async function surfaceWith(users: Record<string, string[] | undefined>) {
  if (!s.core.surfaces) throw new Error('the server keeps no surface tokens');
  const { token } = await s.core.surfaces.create(`bot-${Object.keys(users).join('-')}`);
  const keys: Record<string, string> = {};
  for (const [user, scopes] of Object.entries(users)) {
    const code = (await call(s.url, 'POST', '/v1/links', { key: s.live, body: scopes ? { scopes } : {} })).json.code as string;
    const redeemed = await call(s.url, 'POST', `/v1/links/${code}/redeem`, {
      key: token,
      body: { surface: 'telegram', user_id: user, name: user },
    });
    expect(redeemed.status).toBe(200);
    keys[user] = redeemed.json.key_id as string;
  }
  return { token, keys };
}

describe('6. the thread keeps to scopes', () => {
  it('replies and standing messages that drew on wallet:read or memory:read reach a talk-only key redacted', async () => {
    const say = (text: string) => call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text } });
    const note = 'the-vault-code-is-0451';
    expect((await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'topic:vault', note } })).status).toBe(200);
    const held = await say('what do I hold');
    const wallet = await call(s.url, 'GET', '/v1/wallet', { key: s.live });
    // the total as a reply writes it ("65,000.00 USD"): what the redaction must keep out below
    const total = readableUsd(wallet.json.total_usd);
    expect(held.json.reply).toContain(total);
    expect((await say('what do you remember')).json.reply).toContain(note);
    const created = await say('every day at 09:00 tell me my balance');
    const id = /\((st_\w+)\)/.exec(created.json.reply)?.[1] as string;

    const talk = (await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'talk-only', scopes: ['talk'] } })).json
      .secret as string;
    const page = await call(s.url, 'GET', '/v1/messages', { key: talk });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(note);
    expect(page.text).not.toContain(total);
    const replies = page.json.messages.filter((m: { role: string }) => m.role === 'presence').map((m: { text: string }) => m.text);
    expect(replies).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/redacted: this drew on .*wallet:read/),
        // It also saw the wallet turn before it in its history (which it could have repeated).
        expect.stringMatching(/redacted: this drew on memory:read and wallet:read,/),
      ]),
    );
    // The user's own words stay.
    expect(page.json.messages.map((m: { text: string }) => m.text)).toContain('what do I hold');

    const talkStream = openStream(s.url, '/v1/events', talk);
    const fullStream = openStream(s.url, '/v1/events', s.live);
    await talkStream.until(() => talkStream.status === 200 && talkStream.cursors.length === 1);
    await fullStream.until(() => fullStream.status === 200 && fullStream.cursors.length === 1);
    // Two bots: one linked by a talk-only user and a full user of the account, one by the talk-only user alone.
    const bot = await surfaceWith({ talkie: ['talk'], owner: undefined });
    const talkBot = await surfaceWith({ lone: ['talk'] });
    const surfaceStreams = [bot, talkBot].map((b) => openStream(s.url, '/v1/surface/events', b.token));
    for (const st of surfaceStreams) await st.until(() => st.status === 200 && st.cursors.length === 1);
    clock.set(Date.parse('2026-06-01T09:00:00Z'));
    expect(await s.core.standing.tick()).toBe(1);
    const fired = (frames: typeof talkStream.frames) => frames.find((f) => f.event === 'message' && f.data.cause === `standing:${id}`);
    await fullStream.until(() => fired(fullStream.frames) !== undefined);
    await talkStream.until(() => fired(talkStream.frames) !== undefined);
    expect(fired(fullStream.frames)?.data.text).toContain('USD');
    expect(fired(talkStream.frames)?.data.text).toMatch(/^\[redacted: this drew on wallet:read/);
    await talkStream.close();
    await fullStream.close();

    const onSurface = (frames: typeof talkStream.frames) =>
      frames.find((f) => f.event === 'message' && f.data.event.data.cause === `standing:${id}`);
    for (const st of surfaceStreams) await st.until(() => onSurface(st.frames) !== undefined);
    const [both, alone] = surfaceStreams.map((st) => onSurface(st.frames)?.data);
    // One frame for both links: the text whole for the full link, redacted for the talk-only one.
    expect([...both.key_ids].sort()).toEqual([bot.keys.talkie, bot.keys.owner].sort());
    expect(both.event.data.text).toBe(fired(fullStream.frames)?.data.text);
    expect(Object.keys(both.redacted)).toEqual([bot.keys.talkie]);
    expect(both.redacted[bot.keys.talkie as string]).toBe(fired(talkStream.frames)?.data.text);
    const { surfaceEventFor } = await import('@presence/client');
    const item = {
      type: 'event' as const,
      id: 0,
      account: both.account,
      key_ids: both.key_ids,
      event: both.event,
      redacted: both.redacted,
    };
    expect(surfaceEventFor(item, bot.keys.talkie as string).data).toMatchObject({
      text: expect.stringMatching(/^\[redacted: this drew on wallet:read/),
    });
    expect(surfaceEventFor(item, bot.keys.owner as string).data).toMatchObject({ text: both.event.data.text });
    // No link may read it whole: the whole text never reaches that surface.
    expect(alone.key_ids).toEqual([talkBot.keys.lone]);
    expect(alone.event.data.text).toMatch(/^\[redacted: this drew on wallet:read/);
    expect(JSON.stringify(alone)).not.toContain(total);
    for (const st of surfaceStreams) await st.close();
  });
});
