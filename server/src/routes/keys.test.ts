// routes/keys.ts over inject(): the admin scope, strict bodies and ids, 404 for an unknown key.
import { describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();

describe('/v1/keys', () => {
  it('needs a key with admin to list, create, rotate and revoke', async () => {
    await expectGuarded(f, 'GET', '/v1/keys', ['talk', 'wallet:act']);
    await expectGuarded(f, 'POST', '/v1/keys', ['talk'], { name: 'x', scopes: ['talk'] });
    await expectGuarded(f, 'DELETE', '/v1/keys/key_0000000000000000', ['memory:write']);
  });

  it('refuses a bad body or id with 400 invalid_request', async () => {
    expectProblem(await f.call('POST', '/v1/keys', { body: { name: 'x', scopes: [] } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/keys', { body: { name: 'x', scopes: ['root'] } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/keys', { body: { name: 'x', scopes: ['talk'], colour: 1 } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/keys/nope/rotate'), 400, 'invalid_request');
    expectProblem(await f.call('DELETE', '/v1/keys/key_short'), 400, 'invalid_request');
  });

  it('answers an unknown key 404 not_found', async () => {
    expectProblem(await f.call('DELETE', '/v1/keys/key_0000000000000000'), 404, 'not_found');
    expectProblem(await f.call('POST', '/v1/keys/key_0000000000000000/rotate', { body: { grace_s: 60 } }), 404, 'not_found');
  });

  it('lets any key revoke itself, and no key at all is 401', async () => {
    expectProblem(await f.call('DELETE', '/v1/keys/self', { key: null }), 401, 'auth');
    const own = await f.keyWith('memory:read');
    expect((await f.call('DELETE', '/v1/keys/self', { key: own })).statusCode).toBe(200);
    expectProblem(await f.call('GET', '/v1/memory', { key: own }), 401, 'auth');
  });
});
