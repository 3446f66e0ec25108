// The server's short beat on its own: a hold whose time passes is dropped, and announced,
// without anyone answering it or driving the sweep by hand.
import { expect, it } from 'vitest';
import { useTestServer } from '../support/use-test-server';
import { call, createManualClock, openStream } from './harness';
import { until } from './wallet-helpers';

const clock = createManualClock(Date.now());
const s = useTestServer({ chain: true, clock, beatMs: 50 });

it('an expired hold is dropped by the beat and a confirm event says so', async () => {
  const events = openStream(s.url, '/v1/events', s.live);
  await events.until(() => events.status === 200);
  // Count the server's beats as they finish (it calls core.tick() on its timer).
  let beats = 0;
  const tick = s.core.tick;
  s.core.tick = async () => {
    const fired = await tick();
    beats++;
    return fired;
  };
  const held = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: 'swap 20 USDC for WETH' } });
  expect(held.status).toBe(202);
  // Two whole beats after the hold (the first may have begun before it), then a marker event
  // behind anything they said: the hold, not yet due, was swept and not dropped.
  const after = beats;
  await until(() => beats >= after + 2, 5_000, 'two beats');
  const marker = await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', {
    text: 'marker',
    cause: 'standing:st_marker',
  });
  await events.until(() => events.frames.some((f) => Number(f.id) === marker.id));
  expect(events.frames.some((f) => f.event === 'confirm')).toBe(false);
  clock.advance(601_000);
  await events.until(() => events.frames.some((f) => f.event === 'confirm' && f.data.confirm_id === held.json.confirm_id), 3000);
  expect(events.frames.find((f) => f.event === 'confirm')?.data.status).toBe('expired');
  const list = await call(s.url, 'GET', '/v1/confirm', { key: s.live });
  expect(list.json.confirmations.find((c: { confirm_id: string }) => c.confirm_id === held.json.confirm_id).status).toBe('expired');
  await events.close();
});
