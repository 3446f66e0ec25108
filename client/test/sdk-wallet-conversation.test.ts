// The SDK against a real server with its embedded devnet, for the endpoints that landed
// after the platform: messages (JSON and streamed, and a streamed replay), history,
// standing intents, link codes, wallet, policy, chain views, intents, confirmations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPresenceClient, type EventsItem, type MessageStreamEvent, PresenceApiError, type ResponseInfo } from '../src/index';
import { collect, waitFor } from './helpers/collect';
import { startTestServer, type TestServer } from './helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ chain: true });
});
afterAll(async () => {
  await s?.stop();
});

const clientFor = (token: string, extra: Parameters<typeof createPresenceClient>[0] = {}) =>
  createPresenceClient({ baseUrl: s.url, token, sleep: async () => {}, ...extra });

async function drain(it: AsyncIterable<MessageStreamEvent>) {
  const out: MessageStreamEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe('conversation', () => {
  it('messages.send: one turn as JSON', async () => {
    const r = await clientFor(s.live).messages.send({ text: 'remember that I prefer DAI' });
    expect(r.used).toContainEqual(expect.objectContaining({ tool: 'memory.remember' }));
    expect(r.memory.touched).toContain('pref:DAI');
    expect(r.acted).toBe(false);
  });

  it('messages.send({ stream: true }): tool, tokens, done; a retry with the same key is a replayed stream', async () => {
    const infos: ResponseInfo[] = [];
    const c = clientFor(s.live, { onResponse: (i) => infos.push(i) });
    const first = await drain(c.messages.send({ text: 'how deep is WETH-USDC', stream: true }, { idempotencyKey: 'turn-1' }));
    expect(first[0]).toEqual({ type: 'tool', name: 'chain.pools', args: { pair: 'WETH-USDC' } });
    const done = first.at(-1);
    if (done?.type !== 'done') throw new Error('expected done last');
    const tokens = first.flatMap((e) => (e.type === 'token' ? [e.text] : []));
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join('')).toBe(done.result.reply);

    const again = await drain(c.messages.send({ text: 'how deep is WETH-USDC', stream: true }, { idempotencyKey: 'turn-1' }));
    expect(again.at(-1)).toEqual(done);
    expect(infos.map((i) => i.replayed)).toEqual([false, true]);
  });

  it('history pages with next_before; standing intents list and cancel', async () => {
    const c = clientFor(s.live);
    const made = await c.messages.send({ text: 'tell me when WETH is below 2500 USD' });
    expect(made.used).toContainEqual(expect.objectContaining({ tool: 'standing.create' }));
    // limit counts turns: one turn is the user's message and the presence's answer.
    const page = await c.messages.history({ limit: 1 });
    expect(page.messages.map((m) => m.role)).toEqual(['user', 'presence']);
    expect(page.messages[0]?.text).toBe('tell me when WETH is below 2500 USD');
    expect(page.next_before).not.toBeNull();
    const older = await c.messages.history({ before: page.next_before!, limit: 1 });
    expect(older.messages.map((m) => m.role)).toEqual(['user', 'presence']);
    expect(older.messages[0]?.text).not.toBe(page.messages[0]?.text);

    const { standing } = await c.standing.list();
    const st = standing.find((x) => x.text === 'tell me when WETH is below 2500 USD');
    expect(st).toMatchObject({ armed: true, fired_count: 0 });
    expect((await c.standing.cancel(st!.id)).id).toBe(st!.id);
    expect((await c.standing.list()).standing.map((x) => x.id)).not.toContain(st!.id);
    await expect(c.standing.cancel(st!.id)).rejects.toMatchObject({ type: 'not_found' });
  });

  it('links: an admin makes a code, a surface redeems it without a key, once', async () => {
    const link = await clientFor(s.live).links.create({ scopes: ['talk'] });
    expect(link.code).toMatch(/^[A-Z0-9]{20}$/);
    const anon = createPresenceClient({ baseUrl: s.url });
    const r = await anon.links.redeem(link.code, { surface: 'telegram', user_id: '42', name: 'ada' });
    expect(r).toMatchObject({ name: 'telegram:ada', scopes: ['talk'] });
    expect((await clientFor(r.key).presence.me()).mode).toBe('live');
    await expect(anon.links.redeem(link.code, { surface: 'telegram', user_id: '42', name: 'ada' })).rejects.toMatchObject({
      type: 'not_found',
    });
  });
});

describe('wallet', () => {
  it('wallet, policy and the four chain views', async () => {
    const c = clientFor(s.live);
    const w = await c.wallet.get();
    expect(w.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(w.balances.map((b) => b.symbol)).toContain('USDC');
    expect(w.total_usd).toMatch(/ USD$/);
    expect(w.policy.spend).toBe('guarded');

    const policy = await c.wallet.policy.get();
    const { version, updated_at: _u, ...doc } = policy;
    const stored = await c.wallet.policy.set({ ...doc, daily_cap: '300 USD' });
    expect(stored).toMatchObject({ daily_cap: '300 USD', version: version + 1 });

    const pools = await c.chain.view('pools', { pair: 'WETH-USDC' });
    expect(pools.pools[0]).toMatchObject({ pair: 'WETH-USDC', depth_usd: expect.any(Number) });
    expect((await c.chain.view('tokens')).tokens.map((t) => t.symbol)).toContain('WETH');
    expect((await c.chain.view('safety', { token: 'SCAM' })).verdict).toBe('unsafe');
    expect((await c.chain.view('positions')).address).toBe(w.address);
  });

  it('intent: done within policy, held above confirm_over then approved (tx on the events stream), 409 over the cap', async () => {
    const c = clientFor(s.live);
    const done = await c.wallet.intent({ do: 'swap 5 USDC for WETH' });
    expect(done).toMatchObject({ status: 'done', tx: expect.stringMatching(/^0x/), block: expect.any(Number) });

    const { latest } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
    const events = collect(c.events.subscribe({ lastEventId: latest }));
    const held = await c.wallet.intent({ do: 'swap 20 USDC for WETH' });
    if (held.status !== 'needs_confirm') throw new Error('expected a held intent');
    expect(held.confirm_id).toMatch(/^cf_/);
    expect((await c.confirm.list({ status: 'held' })).confirmations.map((x) => x.confirm_id)).toContain(held.confirm_id);

    const approved = await c.confirm.approve(held.confirm_id);
    expect(approved).toMatchObject({ confirm_id: held.confirm_id, status: 'executed', tx: expect.stringMatching(/^0x/) });
    expect(await c.confirm.approve(held.confirm_id)).toEqual(approved); // the same answer again is idempotent
    await expect(c.confirm.deny(held.confirm_id)).rejects.toMatchObject({ type: 'confirm_resolved', status: 409 });
    if (approved.status !== 'executed') throw new Error('expected the approval to execute');
    expect(await c.confirm.get(held.confirm_id)).toMatchObject({ confirm_id: held.confirm_id, status: 'executed', tx: approved.tx });
    expect((await c.confirm.list({ limit: 1 })).confirmations.map((x) => x.confirm_id)).toEqual([held.confirm_id]);

    const types = (items: EventsItem[]) => items.map((e) => e.type);
    await waitFor(() => types(events.items).includes('tx'));
    expect(types(events.items)).toContain('needs_confirm');

    const blocked = await c.wallet.intent({ do: 'swap 100 USDC for WETH' }).catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(PresenceApiError);
    expect(blocked).toMatchObject({ type: 'policy_block', status: 409 });
  });

  it('withdraw to an address off the allowlist is a policy_block; a test key simulates intents', async () => {
    const c = clientFor(s.live);
    await expect(c.wallet.withdraw({ to: `0x${'1'.repeat(40)}`, amount: '1 USDC' })).rejects.toMatchObject({ type: 'policy_block' });
    const sim = await clientFor(s.test).wallet.intent({ do: 'swap 5 USDC for WETH' });
    expect(sim).toMatchObject({ status: 'done', simulated: true });
  });
});
