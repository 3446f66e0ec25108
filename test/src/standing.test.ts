// Standing intents with a driven clock and real price moves on the devnet: a price alert
// fires once per crossing and re-arms after recovery; a daily report fires at its time; an
// acting intent goes through the pipeline and policy; they survive a restart. Firing is
// exactly once: a fire cut short (before it speaks, between the thread and the event, after
// it acted) is completed after a restart without repeating anything. Acting fires run off
// the beat, one at a time per account; a trigger already true at creation fires on the next
// beat without waiting for a block. Prices are compared as bigints, never as floats.
import { chain as chainLayer } from '@presence/core';
import { readableUsd } from '@presence/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, openStream, removeDir, startTestServer, type TestServer } from './harness';
import { createMarketMover } from './market-mover';
import { newAccount, putPolicy, until } from './wallet-helpers';

const clock = createManualClock(Date.parse('2026-06-01T08:59:00Z'));
let s: TestServer;
const say = (text: string, extra: Record<string, unknown> = {}) =>
  call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text, ...extra } });
/** "2431.12 USD" → 2431.12 USD as a 1e18-scaled bigint (the server's own scale). */
const usd = (text: string) => chainLayer.parseUnits(text.replace(/ USD$/, '').replaceAll(',', ''), chainLayer.USD_DECIMALS);
const wethPrice = async (): Promise<bigint> => {
  const t = await call(s.url, 'GET', '/v1/chain/tokens', { key: s.live });
  return usd(t.json.tokens.find((x: { symbol: string }) => x.symbol === 'WETH').price_usd);
};
const idIn = (reply: string) => /\((st_\w+)\)/.exec(reply)?.[1] as string;
const mover = () => createMarketMover(s.core.wallet!.chain, s.core.wallet!.tokenList);
const address = () => s.core.wallet!.wallets.address('default');
const walletNonce = async () => s.core.wallet!.chain.nonceOf(await address(), 'latest');
const record = async (id: string) => (await s.core.store.listStanding('default')).find((r) => r.id === id);
/** What this standing intent said, counted where it is kept: thread entries and message events. */
async function spoken(id: string) {
  const cause = `standing:${id}`;
  const thread = (await s.core.store.readThread('default', { limit: 100_000 })).filter((e) => e.kind === 'presence' && e.cause === cause);
  const events = (await s.core.store.eventsAfter('default', 0, 100_000)).filter((e) => e.type === 'message' && e.data.cause === cause);
  return { thread: thread.map((e) => (e.kind === 'presence' ? e.text : '')), events: events.map((e) => e.data.text as string) };
}
/** Makes the store's `method` fail once (a crash at that point, as far as the fire can tell). */
function failOnce(method: 'appendThread' | 'appendEvent') {
  const store = s.core.store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const original = store[method] as (...a: unknown[]) => Promise<unknown>;
  store[method] = async () => {
    store[method] = original;
    throw new Error(`injected ${method} failure`);
  };
}
async function defaultPolicy() {
  const { version: _v, updated_at: _u, ...doc } = (await call(s.url, 'GET', '/v1/wallet/policy', { key: s.live })).json;
  return doc;
}

beforeAll(async () => {
  s = await startTestServer({ chain: true, clock, env: { PRESENCE_RATE_LIMIT: '100000/60s' } });
});
afterAll(async () => {
  await s.core.standing.drain();
  await s.close();
  removeDir(s.dataDir);
});

describe('standing intents', () => {
  it('a price alert fires once per crossing, re-arms after recovery, and survives a restart', async () => {
    const events = openStream(s.url, '/v1/events', s.live);
    await events.until(() => events.status === 200);
    const created = await say('tell me when WETH is below 2500 USD');
    const id = idIn(created.json.reply);
    expect(id).toBeDefined();
    const cause = `standing:${id}`;
    const fired = () => events.frames.filter((f) => f.event === 'message' && f.data.cause === cause);

    expect(await s.core.standing.tick()).toBe(0);
    await mover().sellEth(150n * 10n ** 18n);
    const low = await wethPrice();
    expect(low < usd('2500')).toBe(true);
    expect(await s.core.standing.tick()).toBe(1);
    await events.until(() => fired().length === 1);
    // written as replies write USD figures: "WETH is 2,431.12 USD, below your 2,500.00 USD line"
    const m = /^WETH is (\d{1,3}(?:,\d{3})*\.\d{2} USD), below your 2,500\.00 USD line/.exec(fired()[0]?.data.text);
    // The price it quotes is the one the tokens view shows at that block.
    expect(usd(m?.[1] ?? '')).toBe(low);
    // Still below on later blocks: no repeat.
    await mover().sellEth(1n * 10n ** 18n);
    expect(await s.core.standing.tick()).toBe(0);

    // Recovery past the 1% margin re-arms it; the next crossing fires again.
    await mover().buyEthWithAllStables();
    expect((await wethPrice()) * 100n > usd('2500') * 101n).toBe(true);
    expect(await s.core.standing.tick()).toBe(0);
    const listed = await call(s.url, 'GET', '/v1/standing', { key: s.live });
    expect(listed.json.standing.find((x: { id: string }) => x.id === id)).toMatchObject({
      armed: true,
      fired_count: 1,
      trigger: { kind: 'price', token: 'WETH', op: 'below', threshold: '2500.00 USD' },
    });

    await events.close();
    s = await s.restart();
    const after = await call(s.url, 'GET', '/v1/standing', { key: s.live });
    expect(after.json.standing.map((x: { id: string }) => x.id)).toContain(id);
    await mover().sellEth(150n * 10n ** 18n);
    expect(await s.core.standing.tick()).toBe(1);
    const thread = await call(s.url, 'GET', '/v1/messages?limit=5', { key: s.live });
    expect(thread.json.messages.filter((m: { cause?: string }) => m.cause === cause)).toHaveLength(2);
    await mover().buyEthWithAllStables();

    expect((await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live })).status).toBe(200);
    expect((await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live })).status).toBe(404);
  });

  it('every day at 09:00 reports the balance once a day', async () => {
    const events = openStream(s.url, '/v1/events', s.live);
    await events.until(() => events.status === 200);
    const created = await say('every day at 09:00 tell me my balance');
    const id = idIn(created.json.reply);
    clock.set(Date.parse('2026-06-01T08:59:30Z'));
    expect(await s.core.standing.tick()).toBe(0);
    clock.set(Date.parse('2026-06-01T09:00:00Z'));
    expect(await s.core.standing.tick()).toBe(1);
    expect(await s.core.standing.tick()).toBe(0);
    const wallet = await call(s.url, 'GET', '/v1/wallet', { key: s.live });
    await events.until(() => events.frames.some((f) => f.data.cause === `standing:${id}`));
    expect(events.frames.find((f) => f.data.cause === `standing:${id}`)?.data.text).toContain(readableUsd(wallet.json.total_usd));
    clock.advance(24 * 3600_000);
    expect(await s.core.standing.tick()).toBe(1);
    await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });
    await events.close();
  });

  it('an acting intent acts through the policy: executed within it, held above confirm_over', async () => {
    const doc = await defaultPolicy();
    await call(s.url, 'PUT', '/v1/wallet/policy', { key: s.live, body: { ...doc, confirm_over: '100 USD', per_tx_cap: '100 USD' } });
    const talker = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'talk-only', scopes: ['talk'] } });
    const refused = await call(s.url, 'POST', '/v1/messages', {
      key: talker.json.secret,
      body: { text: 'if WETH drops below 2000 buy $50 of WETH' },
    });
    expect(refused.json.reply).toMatch(/wallet:act/);
    // A key that may act, but a message that did not allow it: refused as well.
    const unasked = await say('if WETH drops below 2000 buy $50 of WETH');
    expect(unasked.json.reply).toMatch(/allow_act/);
    expect((await call(s.url, 'GET', '/v1/standing', { key: s.live })).json.standing).toEqual([]);

    const created = await say('if WETH drops below 2000 buy $50 of WETH', { allow_act: true });
    const id = idIn(created.json.reply);
    const weth = s.core.wallet!.tokenList.dex.weth;
    const before = await s.core.wallet!.chain.tokenBalance(weth, await address());
    await mover().sellEth(300n * 10n ** 18n);
    expect((await wethPrice()) < usd('2000')).toBe(true);
    expect(await s.core.standing.tick()).toBe(1);
    await s.core.standing.drain();
    const gained = (await s.core.wallet!.chain.tokenBalance(weth, await address())) - before;
    const price = await wethPrice();
    // $50 of WETH at the post-move price (wei = 50 USD × 1e18 / price), within slippage and the pool fee.
    const expected = (usd('50') * 10n ** 18n) / price;
    expect(gained * 100n > expected * 98n).toBe(true);
    const thread = await call(s.url, 'GET', '/v1/messages?limit=1', { key: s.live });
    expect(thread.json.messages[0]).toMatchObject({ cause: `standing:${id}` });
    expect(thread.json.messages[0].text).toMatch(/Done: swap/);
    await mover().buyEthWithAllStables();
    await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });

    // Same intent with the default threshold: held for confirmation like any action.
    await call(s.url, 'PUT', '/v1/wallet/policy', { key: s.live, body: { ...doc } });
    const held = await say('if WETH drops below 2000 buy $50 of WETH', { allow_act: true });
    const heldId = idIn(held.json.reply);
    expect(await s.core.standing.tick()).toBe(0);
    await mover().sellEth(300n * 10n ** 18n);
    expect(await s.core.standing.tick()).toBe(1);
    await s.core.standing.drain();
    const pending = await call(s.url, 'GET', '/v1/confirm?status=held', { key: s.live });
    expect(pending.json.confirmations.some((c: { summary: string }) => c.summary.startsWith('swap'))).toBe(true);
    const last = await call(s.url, 'GET', '/v1/messages?limit=1', { key: s.live });
    expect(last.json.messages[0].text).toMatch(/so I have held it/);
    await call(s.url, 'DELETE', `/v1/standing/${heldId}`, { key: s.live });
    await mover().buyEthWithAllStables();
  });

  it('a trigger already true when created fires on the next beat, with no new block', async () => {
    expect(await s.core.standing.tick()).toBe(0); // the beat has seen the current block
    const block = await s.core.wallet!.chain.blockNumber();
    const id = idIn((await say('tell me when WETH is above 1 USD')).json.reply);
    expect(await s.core.wallet!.chain.blockNumber()).toBe(block);
    expect(await s.core.standing.tick()).toBe(1);
    expect(await s.core.standing.tick()).toBe(0);
    expect((await spoken(id)).thread).toHaveLength(1);
    await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });
  });

  it('a fire cut short before it speaks is completed once after a restart; so is one cut between thread and event', async () => {
    const id = idIn((await say('tell me when WETH is above 1 USD')).json.reply);
    failOnce('appendThread');
    await expect(s.core.standing.tick()).rejects.toThrow(/injected/);
    // Disarmed and counted, and the fire kept as pending: nothing said yet.
    expect(await record(id)).toMatchObject({ armed: false, fired_count: 1, pending: [{ n: 1 }] });
    expect(await spoken(id)).toEqual({ thread: [], events: [] });

    s = await s.restart();
    failOnce('appendEvent');
    await expect(s.core.standing.tick()).rejects.toThrow(/injected/);
    const half = await spoken(id);
    expect([half.thread.length, half.events.length]).toEqual([1, 0]);
    expect(await s.core.standing.tick()).toBe(0);
    const done = await spoken(id);
    expect(done.thread).toHaveLength(1);
    expect(done.events).toEqual(done.thread);
    expect(done.thread[0]).toMatch(/^WETH is \d{1,3}(?:,\d{3})*\.\d{2} USD, above your 1\.00 USD line/);
    expect(await record(id)).toMatchObject({ fired_count: 1, pending: [] });
    expect(await s.core.standing.tick()).toBe(0);
    expect(await spoken(id)).toEqual(done);
    await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });
  });

  it('an acting fire cut short after it acted reports the one action after a restart and never acts again', async () => {
    const doc = await defaultPolicy();
    await call(s.url, 'PUT', '/v1/wallet/policy', { key: s.live, body: { ...doc, confirm_over: '100 USD', per_tx_cap: '100 USD' } });
    const id = idIn((await say('if WETH is above 1 buy $5 of WETH', { allow_act: true })).json.reply);
    const nonce = await walletNonce();
    failOnce('appendThread');
    expect(await s.core.standing.tick()).toBe(1);
    await s.core.standing.drain();
    const acted = await walletNonce();
    expect(acted).toBeGreaterThan(nonce);
    const intent = await s.core.store.findIntentByIdempotencyKey('default', `standing:${id}:fire:1`);
    expect(intent?.state).toBe('done');
    expect((await record(id))?.pending).toHaveLength(1);
    expect((await spoken(id)).thread).toEqual([]);

    s = await s.restart();
    expect(await s.core.standing.tick()).toBe(0);
    await s.core.standing.drain();
    const said = await spoken(id);
    expect(said.thread).toHaveLength(1);
    expect(said.events).toEqual(said.thread);
    expect(said.thread[0]).toContain(`Transaction ${intent?.txs.at(-1)?.hash}`);
    expect(await walletNonce()).toBe(acted);
    expect((await record(id))?.pending).toEqual([]);
    await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });
    await call(s.url, 'PUT', '/v1/wallet/policy', { key: s.live, body: doc });
  });

  it('an acting fire whose action fails on our side stays pending and acts once on a later beat; not past its window', async () => {
    await putPolicy(s, s.live, {});
    const pipeline = s.core.wallet!.pipeline;
    const submit = pipeline.submit;
    let failing = true;
    pipeline.submit = async (x) => {
      if (failing) throw new Error('chain unreachable (injected)');
      return submit(x);
    };
    try {
      const id = idIn((await say('if WETH is above 1 buy $1 of WETH', { allow_act: true })).json.reply);
      const nonce = await walletNonce();
      expect(await s.core.standing.tick()).toBe(1);
      await s.core.standing.drain();
      expect(await record(id)).toMatchObject({ fired_count: 1, pending: [{ n: 1, say: null }] });
      expect((await spoken(id)).thread).toEqual([]);
      failing = false;
      expect(await s.core.standing.tick()).toBe(0);
      await s.core.standing.drain();
      expect((await spoken(id)).thread).toEqual([expect.stringMatching(/Done: swap 1 USDC/)]);
      expect(await walletNonce()).toBeGreaterThan(nonce);
      await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });

      // Still failing after the window: it gives up and says so rather than act much later.
      failing = true;
      const late = idIn((await say('if WETH is above 1 buy $1 of WETH', { allow_act: true })).json.reply);
      expect(await s.core.standing.tick()).toBe(1);
      await s.core.standing.drain();
      clock.advance(11 * 60_000);
      expect(await s.core.standing.tick()).toBe(0);
      await s.core.standing.drain();
      expect((await spoken(late)).thread).toEqual([expect.stringMatching(/I tried to buy \$1 of WETH, but could not/)]);
      expect((await record(late))?.pending).toEqual([]);
      await call(s.url, 'DELETE', `/v1/standing/${late}`, { key: s.live });
    } finally {
      pipeline.submit = submit;
    }
  });

  it('acting fires run off the beat, one at a time per account; speaking ones are not held up', async () => {
    await putPolicy(s, s.live, {});
    const pipeline = s.core.wallet!.pipeline;
    const submit = pipeline.submit;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    /** The account of each action that reached the pipeline. */
    const calls: string[] = [];
    pipeline.submit = async (x) => {
      calls.push(x.caller.accountId);
      await gate;
      return submit(x);
    };
    // Another account's acting intent, firing on the same beat: its actions queue apart.
    const other = await newAccount(s, 'standing-neighbour');
    const sayAsOther = (text: string) => call(s.url, 'POST', '/v1/messages', { key: other.key, body: { text, allow_act: true } });
    try {
      const a = idIn((await say('if WETH is above 1 buy $2 of WETH', { allow_act: true })).json.reply);
      const b = idIn((await say('if WETH is above 2 buy $3 of WETH', { allow_act: true })).json.reply);
      const n = idIn((await say('tell me when WETH is above 3 USD')).json.reply);
      const c = idIn((await sayAsOther('if WETH is above 1 buy $2 of WETH')).json.reply);
      const nonce = await walletNonce();
      // The beat returns while the first action waits: it does not block on a receipt. (Were
      // it to wait for the action, it would wait for the gate, which opens only further down:
      // the test would end in its timeout.)
      expect(await s.core.standing.tick()).toBe(4);
      expect((await spoken(n)).thread).toHaveLength(1);
      // The second action of the same account waits for the first. The marker: the other
      // account's action, fired on the same beat, reaches the pipeline; had this account's
      // second action not waited, it would have reached it as well.
      await until(() => calls.includes('default') && calls.includes(other.name), 5_000, 'the first action and the marker');
      expect(calls.filter((x) => x === 'default')).toHaveLength(1);
      open();
      await s.core.standing.drain();
      expect(calls.filter((x) => x === 'default')).toHaveLength(2);
      for (const id of [a, b]) expect((await spoken(id)).thread[0]).toMatch(/Done: swap/);
      expect(await walletNonce()).toBeGreaterThan(nonce);
      for (const id of [a, b, n]) await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });
      await call(s.url, 'DELETE', `/v1/standing/${c}`, { key: other.key });
    } finally {
      pipeline.submit = submit;
      open();
    }
  });
});
