// routes/messages.ts over inject(): talk to read and send, the page query and the turn body
// checked (only paths that answer before a model is asked).
import { describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();

describe('/v1/messages', () => {
  it('needs talk to read the thread and to send', async () => {
    await expectGuarded(f, 'GET', '/v1/messages', ['memory:read', 'wallet:read']);
    await expectGuarded(f, 'POST', '/v1/messages', ['memory:write', 'wallet:act'], { text: 'hi' });
  });

  it('pages an empty thread', async () => {
    const r = await f.call('GET', '/v1/messages?limit=5', { key: await f.keyWith('talk') });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ messages: [], next_before: null });
  });

  it('refuses a bad page query or turn with 400 invalid_request', async () => {
    expectProblem(await f.call('GET', '/v1/messages?limit=0'), 400, 'invalid_request');
    expectProblem(await f.call('GET', '/v1/messages?limit=201'), 400, 'invalid_request');
    expectProblem(await f.call('GET', '/v1/messages?before=-3'), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/messages', { body: { text: '' } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/messages', { body: { text: 'hi', mood: 'cheerful' } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/messages', { body: { text: 'hi', stream: 'yes' } }), 400, 'invalid_request');
  });
});
