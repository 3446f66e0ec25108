// routes/passkeys.ts over inject(): admin makes enroll links and removes passkeys, wallet:read
// lists them; bodies and ids checked, an unknown passkey 404, and 503 unavailable on a server
// that keeps none.
import { describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp({ passkeys: true });
const without = useRouteApp();
const unknown = '/v1/passkeys/pk_0000000000000000';

describe('/v1/passkeys', () => {
  it('needs admin to make a link or remove a passkey, wallet:read to list', async () => {
    await expectGuarded(f, 'POST', '/v1/passkeys/enroll', ['wallet:read', 'wallet:act']);
    await expectGuarded(f, 'GET', '/v1/passkeys', ['talk']);
    await expectGuarded(f, 'DELETE', unknown, ['wallet:read']);
  });

  it('makes a one-time link, lists none, and refuses a bad name or id with 400', async () => {
    const made = await f.call('POST', '/v1/passkeys/enroll', { body: { name: 'phone' } });
    expect(made.statusCode).toBe(201);
    expect(made.json().url).toMatch(/\/enroll\/[0-9A-Za-z_-]{20,64}$/);
    expect((await f.call('GET', '/v1/passkeys')).json()).toEqual({ passkeys: [] });
    expectProblem(await f.call('POST', '/v1/passkeys/enroll', { body: { name: '' } }), 400, 'invalid_request');
    expectProblem(await f.call('DELETE', '/v1/passkeys/pk_short'), 400, 'invalid_request');
  });

  it('answers an unknown passkey 404 not_found', async () => {
    expectProblem(await f.call('DELETE', unknown), 404, 'not_found');
  });

  it('answers 503 unavailable on a server that keeps no passkeys', async () => {
    expectProblem(await without.call('GET', '/v1/passkeys'), 503, 'unavailable');
    expectProblem(await without.call('POST', '/v1/passkeys/enroll', { body: {} }), 503, 'unavailable');
  });
});
