// The SSE-over-POST path of streamed messages at edges the real server will not produce on
// demand (the happy path runs against it in sdk-wallet-conversation): typed frames in order, ends after done,
// an error event is a typed error, a break before done is a network error, and retries
// before the stream opens reuse one Idempotency-Key.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createPresenceClient, type MessageStreamEvent, PresenceApiError, PresenceNetworkError } from '../src/index';
import { type Handler, problem, startFakeServer } from './helpers/fake-server';

let fake: Awaited<ReturnType<typeof startFakeServer>> | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const sse = (res: ServerResponse, frames: [string, object][], end = true) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const [event, data] of frames) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  if (end) res.end();
};
const done = { reply: 'Hello there', used: [{ tool: 'chain.pools', args: { pair: 'WETH-USDC' } }], memory: { touched: [] }, acted: false };

async function drain(it: AsyncIterable<MessageStreamEvent>) {
  const out: MessageStreamEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const client = (url: string) => createPresenceClient({ baseUrl: url, token: 'prs_live_x', sleep: async () => {} });

describe('messages.send({ stream: true })', () => {
  it('yields token, tool, needs_confirm and done in order and stops at done', async () => {
    const h: Handler = (_req, res) =>
      sse(res, [
        ['token', { text: 'Hel' }],
        ['tool', { name: 'chain.pools', args: { pair: 'WETH-USDC' } }],
        ['token', { text: 'lo there' }],
        ['needs_confirm', { confirm_id: 'cf_0123456789abcdef' }],
        ['done', done],
        ['token', { text: 'never seen' }],
      ]);
    fake = await startFakeServer([h]);
    const events = await drain(client(fake.url).messages.send({ text: 'hi', stream: true }));
    expect(events).toEqual([
      { type: 'token', text: 'Hel' },
      { type: 'tool', name: 'chain.pools', args: { pair: 'WETH-USDC' } },
      { type: 'token', text: 'lo there' },
      { type: 'needs_confirm', confirm_id: 'cf_0123456789abcdef' },
      { type: 'done', result: done },
    ]);
    const req = fake.seen[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers.accept).toBe('text/event-stream');
    expect(JSON.parse(req.body)).toEqual({ text: 'hi', stream: true });
    expect(req.headers['idempotency-key']).toBeTruthy();
  });

  it('retries before the stream opens with the same Idempotency-Key', async () => {
    fake = await startFakeServer([problem(503, 'unavailable', 'busy'), (_req, res) => sse(res, [['done', done]])]);
    const events = await drain(client(fake.url).messages.send({ text: 'hi', stream: true }));
    expect(events.map((e) => e.type)).toEqual(['done']);
    expect(fake.seen[1]?.headers['idempotency-key']).toBe(fake.seen[0]?.headers['idempotency-key']);
  });

  it('an error event is a typed PresenceApiError', async () => {
    fake = await startFakeServer([
      (_req, res) =>
        sse(res, [
          ['token', { text: 'x' }],
          ['error', { type: 'model_unavailable', title: 'Model provider failed', status: 502, detail: 'upstream timeout' }],
        ]),
    ]);
    const err = await drain(client(fake.url).messages.send({ text: 'hi', stream: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PresenceApiError);
    expect(err).toMatchObject({ type: 'model_unavailable', status: 502 });
  });

  it('a stream that ends before done is a network error (never resent)', async () => {
    fake = await startFakeServer([(_req, res) => sse(res, [['token', { text: 'x' }]])]);
    const err = await drain(client(fake.url).messages.send({ text: 'hi', stream: true })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PresenceNetworkError);
    expect(fake.seen).toHaveLength(1);
  });

  it('without stream it is one JSON call', async () => {
    fake = await startFakeServer([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...done, memory: { touched: ['pair:WETH-USDC'] } }));
      },
    ]);
    const r = await client(fake.url).messages.send({ text: 'how deep is WETH-USDC' });
    expect(r).toMatchObject({ reply: 'Hello there', memory: { touched: ['pair:WETH-USDC'] } });
    expect(JSON.parse(fake.seen[0]!.body)).toEqual({ text: 'how deep is WETH-USDC', stream: false });
  });
});
