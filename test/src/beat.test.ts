// The server's short beat on its own: a hold whose time passes is dropped, and announced,
// without anyone answering it or driving the sweep by hand.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, createManualClock, openStream, removeDir, startTestServer, type TestServer } from './harness';

const clock = createManualClock(Date.now());
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ chain: true, clock, beatMs: 50 });
});
afterAll(async () => {
  await s.close();
  removeDir(s.dataDir);
});

it('an expired hold is dropped by the beat and a confirm event says so', async () => {
  const events = openStream(s.url, '/v1/events', s.live);
  await events.until(() => events.status === 200);
  const held = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: 'swap 20 USDC for WETH' } });
  expect(held.status).toBe(202);
  await new Promise((r) => setTimeout(r, 200));
  expect(events.frames.some((f) => f.event === 'confirm')).toBe(false);
  clock.advance(601_000);
  await events.until(() => events.frames.some((f) => f.event === 'confirm' && f.data.confirm_id === held.json.confirm_id), 3000);
  expect(events.frames.find((f) => f.event === 'confirm')?.data.status).toBe('expired');
  const list = await call(s.url, 'GET', '/v1/confirm', { key: s.live });
  expect(list.json.confirmations.find((c: { confirm_id: string }) => c.confirm_id === held.json.confirm_id).status).toBe('expired');
  await events.close();
});
