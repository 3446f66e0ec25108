// A refused request says which field and what was expected, in words a person reads, with the
// problem type clients branch on unchanged; a query parameter no route names is refused too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const send = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown) => {
  const r = await t.app.inject({ method, url, headers: bearer(t.live), ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: r.statusCode, type: r.json().type as string, detail: r.json().detail as string };
};

describe('validation details', () => {
  it.each([
    ['GET', '/v1/messages?limit=abc', undefined, '`limit` must be a whole number from 1 to 200'],
    ['GET', '/v1/messages?limit=0', undefined, '`limit` must be a whole number from 1 to 200'],
    ['GET', '/v1/webhooks/wh_0000000000000000/deliveries?limit=101', undefined, '`limit` must be a whole number from 1 to 100'],
    ['POST', '/v1/memory/pin', { note: 'n' }, '`key` is required'],
    ['POST', '/v1/memory/pin', { key: 'topic:x', note: 5 }, '`note` must be a string, at most 500 characters'],
    ['POST', '/v1/memory/pin', { key: 'topic:x', colour: 'red' }, 'unknown field `colour`'],
    ['POST', '/v1/keys', { name: 'x', scopes: ['fly'] }, '`scopes[0]` must be one of `talk`, `memory:read`'],
    ['POST', '/v1/confirm/cf_0000000000000000', { approve: 'yes' }, '`approve` must be true or false'],
    ['POST', '/v1/wallet/withdraw', { to: '0x1', amount: '1 ETH' }, '`to`: an address is 0x followed by 40 hex digits'],
    ['POST', '/v1/wallet/withdraw', { to: `0x${'1'.repeat(40)}`, amount: 5 }, '`amount` must be a string like "0.5 ETH"'],
    ['PATCH', '/v1/presence/me', { route: { model: 'local', x: 1 } }, 'unknown field `x` in `route`'],
    ['POST', '/v1/webhooks', { events: ['intent.done'] }, '`url` is required'],
  ] as const)('%s %s %j: %s', async (method, url, body, detail) => {
    const r = await send(method, url, body);
    expect([r.status, r.type]).toEqual([400, 'invalid_request']);
    expect(r.detail).toContain(detail);
    expect(r.detail).not.toMatch(/expected \w+, received|Invalid input/);
  });
});

describe('unknown query parameters', () => {
  it('are refused on a /v1 route with its own query, and on one with none, naming the parameter', async () => {
    expect(await send('GET', '/v1/messages?limt=5')).toMatchObject({
      status: 400,
      type: 'invalid_request',
      detail: 'unknown query parameter `limt`',
    });
    expect(await send('GET', '/v1/keys?verbose=1')).toMatchObject({ status: 400, detail: 'unknown query parameter `verbose`' });
    expect((await send('POST', '/v1/memory/pin?dry_run=1', { key: 'topic:x' })).detail).toBe('unknown query parameter `dry_run`');
  });

  it("are refused on the event streams too (partition is the surface stream's alone)", async () => {
    expect(await send('GET', '/v1/events?partition=1&of=2')).toMatchObject({
      status: 400,
      type: 'invalid_request',
      detail: 'unknown query parameters `partition`, `of`',
    });
    expect(await send('GET', '/v1/events?last_event_id=x')).toMatchObject({
      status: 400,
      detail: '`last_event_id` must be a whole number, at least 0',
    });
  });

  it('a name that is not a parameter name (a code or key pasted into the URL) is not repeated', async () => {
    const code = 'ABCDEFGHJKLMNPQRSTUV';
    const r = await send('GET', `/v1/keys?${code}`);
    expect([r.status, r.type]).toEqual([400, 'invalid_request']);
    expect(r.detail).not.toContain(code);
  });

  it('declared parameters still work, and public routes stay lenient (probes add cache-busters)', async () => {
    expect(await send('GET', '/v1/messages?limit=5')).toMatchObject({ status: 200 });
    expect((await t.app.inject({ method: 'GET', url: '/v1/health?_=1700000000' })).statusCode).toBe(200);
  });
});
