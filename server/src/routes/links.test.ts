// routes/links.ts over inject(): admin makes a link code, anyone may redeem one; bodies checked,
// an unknown code 404.
import { describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();
const user = { surface: 'telegram', user_id: '42', name: 'Ada' };

describe('/v1/links', () => {
  it('needs admin to make a link code', async () => {
    await expectGuarded(f, 'POST', '/v1/links', ['talk', 'wallet:act']);
  });

  it('makes one from a POST with no body at all (the body is optional)', async () => {
    const bare = await f.call('POST', '/v1/links');
    expect(bare.statusCode, bare.body).toBe(201);
    expect(bare.json().code).toEqual(expect.any(String));
  });

  it('refuses a bad link request with 400 invalid_request', async () => {
    expectProblem(await f.call('POST', '/v1/links', { body: { ttl_s: 5 } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/links', { body: { scopes: ['root'] } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/links', { body: { scopes: [], colour: 1 } }), 400, 'invalid_request');
  });

  it('redeems without a key, checking the body, and answers an unknown code 404 not_found', async () => {
    const code = (await f.call('POST', '/v1/links', { body: { scopes: ['talk'] } })).json().code as string;
    expectProblem(
      await f.call('POST', `/v1/links/${code}/redeem`, { key: null, body: { ...user, surface: 'Tele Gram' } }),
      400,
      'invalid_request',
    );
    expectProblem(await f.call('POST', `/v1/links/${code}/redeem`, { key: null, body: { ...user, extra: 1 } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/links/NOPE1234/redeem', { key: null, body: user }), 404, 'not_found');
    const redeemed = await f.call('POST', `/v1/links/${code}/redeem`, { key: null, body: user });
    expect(redeemed.statusCode).toBe(200);
    expect(redeemed.json().key).toMatch(/^prs_live_/);
  });
});
