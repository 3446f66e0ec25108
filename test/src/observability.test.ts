// What an operator watches, on a real server against the embedded devnet: /v1/ready with the
// chain's block, /metrics after real work (intents done, held and blocked; chain calls and
// store writes timed; events counted; a standing intent's fire), and request ids across a
// keyed write and its problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, removeDir, startTestServer, type TestServer } from './harness';
import { sample } from './prometheus-sample';

const clock = createManualClock(Date.parse('2026-06-01T08:59:00Z'));
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ chain: true, clock });
}, 120_000);
afterAll(async () => {
  await s?.close();
  if (s) removeDir(s.dataDir);
});

const scrape = async () => (await call(s.url, 'GET', '/metrics')).text;

describe('observability on a real server', () => {
  it('is ready: the store and the chain answered, with the chain’s block', async () => {
    const r = await call(s.url, 'GET', '/v1/ready');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      ok: true,
      checks: { store: { ok: true, ms: expect.any(Number) }, chain: { ok: true, ms: expect.any(Number), block: expect.any(Number) } },
    });
    expect(r.json.checks.chain.block).toBeGreaterThan(0);
  });

  it('labels every series with the server that answered (as /v1/health names it), so a deployment’s scrapes add up', async () => {
    const id = (await call(s.url, 'GET', '/v1/health')).json.server.id as string;
    expect(id).toMatch(/.:\d+$/); // host:pid unless PRESENCE_SERVER_ID says otherwise
    const series = (await scrape()).split('\n').filter((line) => line && !line.startsWith('#'));
    expect(series.length).toBeGreaterThan(10);
    expect(series.filter((line) => !line.includes(`server="${id}"`))).toEqual([]);
  });

  it('counts intents by outcome, times chain calls and store writes, and counts events, after real intents', async () => {
    const before = await scrape();
    const intents = (outcome: string, text = before) => sample(text, 'presence_intents_total', { outcome, mode: 'live' }) ?? 0;
    const done = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: 'swap 5 USDC for WETH' } });
    expect(done.status).toBe(200);
    const held = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: 'swap 20 USDC for WETH' } });
    expect(held.status).toBe(202);
    const blocked = await call(s.url, 'POST', '/v1/wallet/intent', {
      key: s.live,
      body: { do: `send 1 USDC to 0x${'1'.repeat(40)}` },
      headers: { 'x-request-id': 'blocked-send-1' },
    });
    expect([blocked.status, blocked.json.type, blocked.json.request_id]).toEqual([409, 'policy_block', 'blocked-send-1']);
    expect(blocked.headers.get('x-request-id')).toBe('blocked-send-1');

    const after = await scrape();
    expect([intents('done', after), intents('held', after), intents('blocked', after)]).toEqual([
      intents('done') + 1,
      intents('held') + 1,
      intents('blocked') + 1,
    ]);
    expect(sample(after, 'http_request_duration_seconds_count', { route: '/v1/wallet/intent', status: '200' })).toBe(1);
    expect(sample(after, 'http_request_duration_seconds_count', { route: '/v1/wallet/intent', status: '409' })).toBe(1);
    // The executed intent sent a raw transaction and waited for its receipt, through the timed chain port.
    expect(sample(after, 'presence_chain_rpc_duration_seconds_count', { operation: 'sendRaw', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, 'presence_chain_rpc_duration_seconds_count', { operation: 'waitForReceipt', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(after, 'presence_store_write_duration_seconds_count', { operation: 'createIntent', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(2);
    // tx for the one executed, needs_confirm for the held one.
    expect(sample(after, 'presence_events_appended_total', { type: 'tx', mode: 'live' })).toBe(
      (sample(before, 'presence_events_appended_total', { type: 'tx', mode: 'live' }) ?? 0) + 1,
    );
    expect(sample(after, 'presence_events_appended_total', { type: 'needs_confirm', mode: 'live' })).toBe(
      (sample(before, 'presence_events_appended_total', { type: 'needs_confirm', mode: 'live' }) ?? 0) + 1,
    );
    // A real server also reports the process itself.
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts standing fires, as the beat reports them', async () => {
    const fires = async () => sample(await scrape(), 'presence_standing_fires_total') ?? 0;
    const before = await fires();
    const created = await call(s.url, 'POST', '/v1/messages', { key: s.live, body: { text: 'every day at 09:00 tell me my balance' } });
    expect(created.json.reply).toMatch(/\(st_\w+\)/);
    expect(await s.core.tick()).toBe(0);
    expect(await fires()).toBe(before);
    clock.set(Date.parse('2026-06-01T09:00:00Z'));
    expect(await s.core.tick()).toBe(1);
    expect(await fires()).toBe(before + 1);
  });
});
