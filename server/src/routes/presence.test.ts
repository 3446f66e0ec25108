// routes/presence.ts over inject(): any key reads its presence, admin changes it, patches checked.
import { describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();

describe('/v1/presence/me', () => {
  it('answers any key, and no key 401 auth', async () => {
    expectProblem(await f.call('GET', '/v1/presence/me', { key: null }), 401, 'auth');
    expect((await f.call('GET', '/v1/presence/me', { key: await f.keyWith('wallet:read') })).statusCode).toBe(200);
  });

  it('needs admin to change it', async () => {
    await expectGuarded(f, 'PATCH', '/v1/presence/me', ['talk', 'memory:write', 'wallet:act'], { name: 'Ada' });
  });

  it('refuses a bad patch with 400 invalid_request and changes nothing', async () => {
    expectProblem(await f.call('PATCH', '/v1/presence/me', { body: { name: '' } }), 400, 'invalid_request');
    expectProblem(await f.call('PATCH', '/v1/presence/me', { body: { name: 42 } }), 400, 'invalid_request');
    expectProblem(await f.call('PATCH', '/v1/presence/me', { body: { route: { model: 'local', extra: 1 } } }), 400, 'invalid_request');
    const before = (await f.call('GET', '/v1/presence/me')).json();
    expect((await f.call('PATCH', '/v1/presence/me', { body: { name: 'Ada' } })).json()).toMatchObject({ name: 'Ada' });
    expect(before.name).not.toBe('Ada');
  });
});
