// Standing intents with a driven clock and real price moves on the devnet: a price alert
// fires once per crossing and re-arms after recovery; a daily report fires at its time; an
// acting intent goes through the pipeline and policy; they survive a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, openStream, removeDir, startTestServer, type TestServer } from './harness';
import { createMarketMover } from './market-mover';

const clock = createManualClock(Date.parse('2026-06-01T08:59:00Z'));
let s: TestServer;
const say = (text: string, extra: Record<string, unknown> = {}) =>
  call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text, ...extra } });
const wethPrice = async () => {
  const t = await call(s.url, 'GET', '/v1/chain/tokens', { key: s.live });
  return Number.parseFloat(t.json.tokens.find((x: { symbol: string }) => x.symbol === 'WETH').price_usd);
};

beforeAll(async () => {
  s = await startTestServer({ chain: true, clock, env: { PRESENCE_RATE_LIMIT: '100000/60s' } });
});
afterAll(async () => {
  await s.close();
  removeDir(s.dataDir);
});

describe('standing intents', () => {
  it('a price alert fires once per crossing, re-arms after recovery, and survives a restart', async () => {
    const events = openStream(s.url, '/v1/events', s.live);
    await events.until(() => events.status === 200);
    const created = await say('tell me when WETH is below 2500 USD');
    const id = /\((st_\w+)\)/.exec(created.json.reply)?.[1] as string;
    expect(id).toBeDefined();
    const mover = createMarketMover(s.core.wallet!.chain, s.core.wallet!.tokenList);
    const cause = `standing:${id}`;
    const fired = () => events.frames.filter((f) => f.event === 'message' && f.data.cause === cause);

    expect(await s.core.standing.tick()).toBe(0);
    await mover.sellEth(150n * 10n ** 18n);
    expect(await wethPrice()).toBeLessThan(2500);
    expect(await s.core.standing.tick()).toBe(1);
    await events.until(() => fired().length === 1);
    expect(fired()[0]?.data.text).toMatch(/^WETH is \d+\.\d{2} USD, below your 2500\.00 USD line/);
    // Still below on later blocks: no repeat.
    await mover.sellEth(1n * 10n ** 18n);
    expect(await s.core.standing.tick()).toBe(0);

    // Recovery past the 1% margin re-arms it; the next crossing fires again.
    await mover.buyEthWithAllStables();
    expect(await wethPrice()).toBeGreaterThan(2525);
    expect(await s.core.standing.tick()).toBe(0);
    const listed = await call(s.url, 'GET', '/v1/standing', { key: s.live });
    expect(listed.json.standing.find((x: { id: string }) => x.id === id)).toMatchObject({ armed: true, fired_count: 1 });

    await events.close();
    s = await s.restart();
    const after = await call(s.url, 'GET', '/v1/standing', { key: s.live });
    expect(after.json.standing.map((x: { id: string }) => x.id)).toContain(id);
    await createMarketMover(s.core.wallet!.chain, s.core.wallet!.tokenList).sellEth(150n * 10n ** 18n);
    expect(await s.core.standing.tick()).toBe(1);
    const thread = await call(s.url, 'GET', '/v1/messages?limit=5', { key: s.live });
    expect(thread.json.messages.filter((m: { cause?: string }) => m.cause === cause)).toHaveLength(2);
    await createMarketMover(s.core.wallet!.chain, s.core.wallet!.tokenList).buyEthWithAllStables();

    expect((await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live })).status).toBe(200);
    expect((await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live })).status).toBe(404);
  });

  it('every day at 09:00 reports the balance once a day', async () => {
    const events = openStream(s.url, '/v1/events', s.live);
    await events.until(() => events.status === 200);
    const created = await say('every day at 09:00 tell me my balance');
    const id = /\((st_\w+)\)/.exec(created.json.reply)?.[1] as string;
    clock.set(Date.parse('2026-06-01T08:59:30Z'));
    expect(await s.core.standing.tick()).toBe(0);
    clock.set(Date.parse('2026-06-01T09:00:00Z'));
    expect(await s.core.standing.tick()).toBe(1);
    expect(await s.core.standing.tick()).toBe(0);
    const wallet = await call(s.url, 'GET', '/v1/wallet', { key: s.live });
    await events.until(() => events.frames.some((f) => f.data.cause === `standing:${id}`));
    expect(events.frames.find((f) => f.data.cause === `standing:${id}`)?.data.text).toContain(wallet.json.total_usd);
    clock.advance(24 * 3600_000);
    expect(await s.core.standing.tick()).toBe(1);
    await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });
    await events.close();
  });

  it('an acting intent acts through the policy: executed within it, held above confirm_over', async () => {
    const policy = (await call(s.url, 'GET', '/v1/wallet/policy', { key: s.live })).json;
    const { version: _v, updated_at: _u, ...doc } = policy;
    await call(s.url, 'PUT', '/v1/wallet/policy', { key: s.live, body: { ...doc, confirm_over: '100 USD', per_tx_cap: '100 USD' } });
    const talker = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'talk-only', scopes: ['talk'] } });
    const refused = await call(s.url, 'POST', '/v1/messages', {
      key: talker.json.secret,
      body: { text: 'if WETH drops below 2000 buy $50 of WETH' },
    });
    expect(refused.json.reply).toMatch(/wallet:act/);

    const created = await say('if WETH drops below 2000 buy $50 of WETH');
    const id = /\((st_\w+)\)/.exec(created.json.reply)?.[1] as string;
    const address = await s.core.wallet!.wallets.address('default');
    const weth = s.core.wallet!.tokenList.dex.weth;
    const before = await s.core.wallet!.chain.tokenBalance(weth, address);
    const mover = createMarketMover(s.core.wallet!.chain, s.core.wallet!.tokenList);
    await mover.sellEth(300n * 10n ** 18n);
    expect(await wethPrice()).toBeLessThan(2000);
    expect(await s.core.standing.tick()).toBe(1);
    const gained = (await s.core.wallet!.chain.tokenBalance(weth, address)) - before;
    const price = await wethPrice();
    // $50 of WETH at the post-move price, within slippage and the pool fee.
    expect(Number(gained) / 1e18).toBeGreaterThan((50 / price) * 0.98);
    const thread = await call(s.url, 'GET', '/v1/messages?limit=1', { key: s.live });
    expect(thread.json.messages[0]).toMatchObject({ cause: `standing:${id}` });
    expect(thread.json.messages[0].text).toMatch(/As you asked, I did it: swap/);
    await mover.buyEthWithAllStables();
    await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.live });

    // Same intent with the default threshold: held for confirmation like any action.
    await call(s.url, 'PUT', '/v1/wallet/policy', { key: s.live, body: { ...doc } });
    const held = await say('if WETH drops below 2000 buy $50 of WETH');
    const heldId = /\((st_\w+)\)/.exec(held.json.reply)?.[1] as string;
    expect(await s.core.standing.tick()).toBe(0);
    await mover.sellEth(300n * 10n ** 18n);
    expect(await s.core.standing.tick()).toBe(1);
    const pending = await call(s.url, 'GET', '/v1/confirm?status=held', { key: s.live });
    expect(pending.json.confirmations.some((c: { summary: string }) => c.summary.startsWith('swap'))).toBe(true);
    const last = await call(s.url, 'GET', '/v1/messages?limit=1', { key: s.live });
    expect(last.json.messages[0].text).toMatch(/needs your approval/);
    await call(s.url, 'DELETE', `/v1/standing/${heldId}`, { key: s.live });
  });
});
