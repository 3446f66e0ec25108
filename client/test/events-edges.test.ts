// The events iterator at edges a real server will not produce on demand: gap, a stream
// error event, an id-only frame, a frame cut by a drop, an idle (silent) connection, and
// 429 on reconnect.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createPresenceClient, type EventsItem, PresenceEventTooLargeError, type ReconnectInfo } from '../src/index';
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
    // A drop comes once the text is handed to the socket, so the client reads it before the cut.
    res.write(text, () => {
      if (end === 'destroy') req.socket.destroy();
    });
    if (end === 'end') res.end();
  };
const ids = (items: EventsItem[]) =>
  items.map((e) => (e.type === 'gap' ? `gap:${e.data.oldest_id}` : e.type === 'unrecognized' ? `?${e.event}:${e.id}` : e.id));

function subscribe(
  url: string,
  options: Parameters<ReturnType<typeof createPresenceClient>['events']['subscribe']>[0] = {},
  clientOptions: Parameters<typeof createPresenceClient>[0] = {},
) {
  const sleeps: number[] = [];
  const reconnects: ReconnectInfo[] = [];
  const c = createPresenceClient({
    ...clientOptions,
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
  it('passes gap through, resumes with the last id, and hands out unknown types as unrecognized, their ids counted', async () => {
    fake = await startFakeServer([
      stream(`event: gap\ndata: {"oldest_id":50}\n\n${frame(50)}${frame(51)}id: 52\nevent: brand_new\ndata: {}\n\n`),
      stream(`${frame(52)}${frame(53)}`, 'hold'),
    ]);
    const { sub, got } = subscribe(fake.url, { lastEventId: 10 });
    await got.until(() => got.items.length === 5);
    expect(ids(got.items)).toEqual(['gap:50', 50, 51, '?brand_new:52', 53]);
    expect(got.items[3]).toMatchObject({ type: 'unrecognized', data: {}, reason: expect.stringContaining('newer than this SDK') });
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

  it('an id-only frame moves the resume point and is reported by onCursor; a server error event means reconnect', async () => {
    const err = { type: 'internal', title: 'Internal error', status: 500, detail: 'reconnect with Last-Event-ID' };
    fake = await startFakeServer([stream(`id: 40\n\nevent: error\ndata: ${JSON.stringify(err)}\n\n`), stream(frame(41), 'hold')]);
    const cursors: number[] = [];
    const { sub, got, reconnects } = subscribe(fake.url, { onCursor: (id) => cursors.push(id) });
    await got.until(() => got.items.length === 1);
    expect(cursors).toEqual([40]); // event ids are the caller's to persist once handled; only the bare frame is reported
    expect(fake.seen[1]?.headers['last-event-id']).toBe('40');
    expect(reconnects[0]?.error).toMatchObject({ type: 'internal', status: 500 });
    sub.close();
    await got.done;
  });

  it('a cursor frame lower than the resume point (a server restored from a backup) moves it down, so what follows is not dropped as seen', async () => {
    fake = await startFakeServer([stream(`id: 3\n\n${frame(4)}`), stream(frame(5), 'hold')]);
    const cursors: number[] = [];
    const { sub, got } = subscribe(fake.url, { lastEventId: 1_000, onCursor: (id) => cursors.push(id) });
    await got.until(() => got.items.length === 2);
    expect(cursors).toEqual([3]);
    expect(got.items.map((i) => (i as { id?: number }).id)).toEqual([4, 5]);
    expect(fake.seen[0]?.headers['last-event-id']).toBe('1000');
    expect(fake.seen[1]?.headers['last-event-id']).toBe('4');
    sub.close();
    await got.done;
  });

  it('typed payloads from core: a malformed one is handed out as unrecognized and the stream goes on', async () => {
    const needs = {
      confirm_id: 'cf_0123456789abcdef',
      intent_id: 'in_1',
      summary: 'swap 20 USDC for WETH',
      amount: '20 USDC',
      value_usd: '20.00 USD',
      expires_at: '2030-01-01T00:00:00.000Z',
      timeout_s: 600,
      at: '2030-01-01T00:00:00.000Z',
    };
    fake = await startFakeServer([
      stream(
        [
          `id: 1\nevent: needs_confirm\ndata: ${JSON.stringify(needs)}\n\n`,
          `id: 2\nevent: needs_confirm\ndata: ${JSON.stringify({ ...needs, timeout_s: 'soon' })}\n\n`,
          'id: 3\nevent: message\ndata: not json\n\n',
          'event: gap\ndata: {"oldest":1}\n\n',
          'event: error\ndata: [1]\n\n',
        ].join(''),
      ),
      stream(`id: 4\nevent: message\ndata: ${JSON.stringify({ text: 'hi', cause: 'standing:st_1', at: 'now' })}\n\n`, 'hold'),
    ]);
    const { sub, got, reconnects } = subscribe(fake.url);
    await got.until(() => got.items.length === 5);
    const [ok, wrongType, notJson, badGap, message] = got.items;
    if (ok?.type !== 'needs_confirm') throw new Error('expected a typed needs_confirm');
    expect(ok.data.timeout_s + 1).toBe(601); // typed: a number, no cast
    expect(wrongType).toMatchObject({ type: 'unrecognized', id: 2, event: 'needs_confirm', reason: expect.stringContaining('timeout_s') });
    expect(notJson).toMatchObject({ type: 'unrecognized', id: 3, event: 'message', data: 'not json', reason: 'the data is not JSON' });
    expect(badGap).toMatchObject({ type: 'unrecognized', id: undefined, event: 'gap' });
    expect(message).toMatchObject({ type: 'message', id: 4, data: { text: 'hi' } });
    // An unreadable `error` event is still a reason to reconnect, from after the last id.
    expect(reconnects[0]?.error).toMatchObject({ type: 'internal', status: 500 });
    expect(fake.seen[1]?.headers['last-event-id']).toBe('3');
    expect(got.error).toBeUndefined();
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

  it('an event over maxEventSize ends the iteration with PresenceEventTooLargeError, closes the stream and is not retried', async () => {
    let closed!: () => void;
    const streamClosed = new Promise<void>((r) => {
      closed = r;
    });
    fake = await startFakeServer([
      (_req, res) => {
        open(res);
        res.write(frame(1));
        res.write('id: 2\nevent: memory\ndata: "');
        // An event that never ends: only the client giving up stops it.
        let writing = true;
        res.on('close', () => {
          writing = false;
          closed();
        });
        const more = () => {
          if (writing) res.write('x'.repeat(4096), () => setImmediate(more));
        };
        more();
      },
    ]);
    const { got, reconnects } = subscribe(fake.url, {}, { maxEventSize: 64 * 1024 });
    await got.done;
    expect(ids(got.items)).toEqual([1]);
    expect(got.error).toBeInstanceOf(PresenceEventTooLargeError);
    expect(got.error).toMatchObject({
      limit: 65536,
      message: expect.stringMatching(/^GET \/v1\/events: an event is larger than 65536 characters/),
    });
    await streamClosed;
    expect(reconnects).toEqual([]);
    expect(fake.seen).toHaveLength(1);
  });
});
