// How an event stream ends when reading the log fails: with an `error` frame whose problem says
// why. The database away is `store_unavailable` (reconnect with Last-Event-ID: nothing is
// lost), not an `internal` fault of ours; anything else still is one. And the problems it
// answers before a stream opens: no key, no scope that sees any event, a bad resume point.
import { PresenceError } from '@presence/core';
import { afterEach, describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The stream's body to its end, when its subscription fails with `failure` on first read. */
async function streamFailingWith(failure: unknown): Promise<string> {
  t = await startTestApp();
  t.core.events.subscribe = () => ({
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(failure) }),
    close: () => undefined,
    endReason: 'open',
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  const res = await fetch(`http://127.0.0.1:${port}/v1/events`, { headers: bearer(t.live), signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
  return res.text();
}

/** The data of the stream's `error` frame. */
const errorFrame = (body: string) => {
  const frame = body.split('\n\n').find((f) => f.startsWith('event: error\n'));
  return JSON.parse((frame ?? '').replace(/^event: error\ndata: /, '')) as { type: string; status: number; detail: string };
};

describe('GET /v1/events when reading the log fails', () => {
  it('ends with an error frame of store_unavailable when the database did not answer', async () => {
    const body = await streamFailingWith(
      new PresenceError('store_unavailable', 'the database failed during eventBounds (57P01)', { retryAfter: 1 }),
    );
    expect(errorFrame(body)).toMatchObject({ type: 'store_unavailable', status: 503 });
  });

  it('ends with an error frame of internal for a fault of ours, saying nothing about it', async () => {
    const body = await streamFailingWith(new TypeError('cannot read properties of undefined'));
    const problem = errorFrame(body);
    expect(problem).toMatchObject({ type: 'internal', status: 500, detail: 'the events stream failed; reconnect with Last-Event-ID' });
    expect(body).not.toContain('undefined');
  });
});

describe('GET /v1/events before the stream opens', () => {
  const f = useRouteApp();

  it('needs a key holding a scope that sees some event', async () => {
    await expectGuarded(f, 'GET', '/v1/events', ['wallet:act', 'memory:write']);
  });

  it('refuses a bad resume point with 400 invalid_request', async () => {
    expectProblem(await f.call('GET', '/v1/events?last_event_id=-1'), 400, 'invalid_request');
    expectProblem(await f.call('GET', '/v1/events?last_event_id=soon'), 400, 'invalid_request');
    expectProblem(await f.call('GET', '/v1/events', { headers: { 'last-event-id': '1e3' } }), 400, 'invalid_request');
    // Found probing by hand: the query took whatever Number() reads, "" (replay all) included.
    for (const v of ['', '1e3', '0x10', '%205'])
      expectProblem(await f.call('GET', `/v1/events?last_event_id=${v}`), 400, 'invalid_request');
  });
});
