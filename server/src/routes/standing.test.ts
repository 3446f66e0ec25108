// routes/standing.ts over inject(): talk to list and cancel, ids checked, 404 for an unknown one.
import { describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();

describe('/v1/standing', () => {
  it('needs talk to list and to cancel', async () => {
    await expectGuarded(f, 'GET', '/v1/standing', ['memory:read', 'wallet:read']);
    await expectGuarded(f, 'DELETE', '/v1/standing/st_000000000000', ['wallet:act']);
  });

  it('lists none on a new account', async () => {
    const r = await f.call('GET', '/v1/standing', { key: await f.keyWith('talk') });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ standing: [] });
  });

  it('refuses a malformed id with 400 and answers an unknown one 404 not_found', async () => {
    expectProblem(await f.call('DELETE', '/v1/standing/nope'), 400, 'invalid_request');
    expectProblem(await f.call('DELETE', '/v1/standing/st_000000000000'), 404, 'not_found');
  });
});
