// routes/surface.ts over inject(): surface routes take a surface token only (no key 401, a key
// 403 scope, a revoked token 401); bodies and the stream's query checked before it opens.
import { describe, expect, it } from 'vitest';
import { expectProblem, type RouteFixture, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();
const makeSurface = async (fixture: RouteFixture, name: string) =>
  (await (fixture.t.core.surfaces as NonNullable<typeof fixture.t.core.surfaces>).create(name)).token;

describe('/v1/surface', () => {
  it('takes a surface token, not a key', async () => {
    expectProblem(await f.call('GET', '/v1/surface', { key: null }), 401, 'auth');
    expectProblem(await f.call('GET', '/v1/surface'), 403, 'scope');
    expectProblem(await f.call('GET', '/v1/surface/events'), 403, 'scope');
    const r = await f.call('GET', '/v1/surface', { key: await makeSurface(f, 'telegram-main') });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ name: 'telegram-main', links: 0 });
  });

  it('refuses a bad adopt body, a bad stream query and Presence-Acting-For with 400 invalid_request', async () => {
    const key = await makeSurface(f, 'discord-main');
    expectProblem(await f.call('POST', '/v1/surface/adopt', { key, body: { key: '' } }), 400, 'invalid_request');
    expectProblem(
      await f.call('POST', '/v1/surface/adopt', { key, body: { key: 'x', surface_user: '1', more: 1 } }),
      400,
      'invalid_request',
    );
    for (const query of ['partition=1', 'partition=2&of=2', 'last_event_id=-1'])
      expectProblem(await f.call('GET', `/v1/surface/events?${query}`, { key }), 400, 'invalid_request');
    expectProblem(await f.call('GET', '/v1/surface/events', { key, headers: { 'last-event-id': 'soon' } }), 400, 'invalid_request');
    const acting = { 'presence-acting-for': 'key_0000000000000000' };
    expectProblem(await f.call('GET', '/v1/surface', { key, headers: acting }), 400, 'invalid_request');
  });

  it('answers a revoked surface token 401 auth', async () => {
    const key = await makeSurface(f, 'revoked-one');
    await (f.t.core.surfaces as NonNullable<typeof f.t.core.surfaces>).revoke('revoked-one');
    expectProblem(await f.call('GET', '/v1/surface', { key }), 401, 'auth');
  });
});
