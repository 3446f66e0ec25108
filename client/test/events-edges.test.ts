// The events iterator at edges a real server will not produce on demand: gap, a stream
// error event, an id-only frame, a frame cut by a drop, an idle (silent) connection, and
// 429 on reconnect.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createPresenceClient, type EventsItem, type ReconnectInfo } from '../src/index';
import { collect } from './helpers/collect';
import { type Handler, problem, startFakeServer } from './helpers/fake-server';

let fake: Awaited<ReturnType<typeof startFakeServer>> | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const open = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const frame = (id: number, data: object = { key: `topic:${id}`, tier: 'fading', at: 'now' }) =>
  `id: ${id}\nevent: memory\ndata: ${JSON.stringify(data)}\n\n`;
/** Writes the text, then ends the response (a clean close) or destroys the socket. */
const stream =
  (text: string, end: 'end' | 'destroy' | 'hold' = 'end'): Handler =>
  (req, res) => {
    open(res);
    res.write(text);
    if (end === 'end') res.end();
    else if (end === 'destroy') setTimeout(() => req.socket.destroy(), 20);
  };
const ids = (items: EventsItem[]) => items.map((e) => (e.type === 'gap' ? `gap:${e.data.oldest_id}` : e.id));

function subscribe(url: string, options: Parameters<ReturnType<typeof createPresenceClient>['events']['subscribe']>[0] = {}) {
  const sleeps: number[] = [];
  const reconnects: ReconnectInfo[] = [];
  const c = createPresenceClient({
    baseUrl: url,
    token: 'prs_live_x',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  const sub = c.events.subscribe({ onReconnect: (r) => reconnects.push(r), ...options });
  return { sub, sleeps, reconnects, got: collect(sub) };
}

describe('events iterator edges', () => {
  it('passes gap through, resumes with the last id, and skips unknown types but counts their ids', async () => {
    fake = await startFakeServer([
      stream(`event: gap\ndata: {"oldest_id":50}\n\n${frame(50)}${frame(51)}id: 52\nevent: brand_new\ndata: {}\n\n`),
      stream(`${frame(52)}${frame(53)}`, 'hold'),
    ]);
    const { sub, got } = subscribe(fake.url, { lastEventId: 10 });
    await got.until(() => got.items.length === 4);
    expect(ids(got.items)).toEqual(['gap:50', 50, 51, 53]);
    expect(fake.seen.map((r) => r.headers['last-event-id'])).toEqual(['10', '52']);
    sub.close();
    await got.done;
  });

  it('a frame cut off by a drop is not delivered; it comes whole after the reconnect', async () => {
    fake = await startFakeServer([stream(`${frame(1)}id: 2\nevent: memory\ndata: {"key":"top`, 'destroy'), stream(frame(2), 'hold')]);
    const { sub, got, reconnects } = subscribe(fake.url);
    await got.until(() => got.items.length === 2);
    expect(ids(got.items)).toEqual([1, 2]);
    expect(got.items[1]?.data).toMatchObject({ key: 'topic:2' });
    expect(reconnects[0]?.error).toMatchObject({ code: 'interrupted' });
    expect(fake.seen[1]?.headers['last-event-id']).toBe('1');
    sub.close();
    await got.done;
  });

  it('an id-only frame moves the resume point; a server error event means reconnect', async () => {
    const err = { type: 'internal', title: 'Internal error', status: 500, detail: 'reconnect with Last-Event-ID' };
    fake = await startFakeServer([stream(`id: 40\n\nevent: error\ndata: ${JSON.stringify(err)}\n\n`), stream(frame(41), 'hold')]);
    const { sub, got, reconnects } = subscribe(fake.url);
    await got.until(() => got.items.length === 1);
    expect(fake.seen[1]?.headers['last-event-id']).toBe('40');
    expect(reconnects[0]?.error).toMatchObject({ type: 'internal', status: 500 });
    sub.close();
    await got.done;
  });

  it('a silent connection is dropped after the idle limit; heartbeats keep it alive', async () => {
    fake = await startFakeServer([
      (_req, res) => {
        open(res);
        // Heartbeats for a while (alive), then silence (dead).
        let beats = 0;
        const t = setInterval(() => {
          if (++beats > 4) clearInterval(t);
          else res.write(': heartbeat\n\n');
        }, 50);
      },
      stream(frame(1), 'hold'),
    ]);
    const { sub, got, reconnects } = subscribe(fake.url, { idleTimeoutMs: 150 });
    await got.until(() => got.items.length === 1);
    expect(reconnects).toHaveLength(1);
    expect(reconnects[0]?.error).toMatchObject({ code: 'timeout' });
    sub.close();
    await got.done;
  });

  it('429 on reconnect waits Retry-After; retry: from the server raises the backoff floor', async () => {
    fake = await startFakeServer([
      stream(`retry: 700\n${frame(1)}`),
      problem(429, 'rate_limited', 'slow down', { 'retry-after': '3' }),
      stream(frame(2), 'hold'),
    ]);
    const { sub, got, sleeps } = subscribe(fake.url);
    await got.until(() => got.items.length === 2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(700);
    expect(sleeps[1]).toBe(3000);
    sub.close();
    await got.done;
  });

  it('gives up after maxAttempts consecutive failures with the last error', async () => {
    fake = await startFakeServer([problem(503, 'unavailable', 'down')]);
    const { got } = subscribe(fake.url, { reconnect: { maxAttempts: 2 } });
    await got.done;
    expect(got.error).toMatchObject({ type: 'unavailable', status: 503 });
    expect(fake.seen).toHaveLength(3);
  });

  it('a 400 is not retried', async () => {
    fake = await startFakeServer([problem(400, 'invalid_request', 'Last-Event-ID must be a non-negative integer')]);
    const { got } = subscribe(fake.url);
    await got.done;
    expect(got.error).toMatchObject({ type: 'invalid_request' });
    expect(fake.seen).toHaveLength(1);
  });
});
