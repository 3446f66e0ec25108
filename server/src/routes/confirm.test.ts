// routes/confirm.ts over inject(): wallet:read lists holds and reads one, wallet:act answers one; query, id
// and body checked before the chain is asked.
import { describe, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();
const held = '/v1/confirm/cf_0000000000000000';

describe('/v1/confirm', () => {
  it('needs wallet:read to list and wallet:act to answer', async () => {
    await expectGuarded(f, 'GET', '/v1/confirm', ['talk', 'wallet:act']);
    await expectGuarded(f, 'GET', held, ['talk', 'wallet:act']);
    await expectGuarded(f, 'POST', held, ['wallet:read', 'admin'], { approve: true });
  });

  it('refuses a bad status, id or answer with 400 invalid_request', async () => {
    expectProblem(await f.call('GET', '/v1/confirm?status=maybe'), 400, 'invalid_request');
    for (const limit of ['0', '201', 'ten', '1.5'])
      expectProblem(await f.call('GET', `/v1/confirm?limit=${limit}`), 400, 'invalid_request');
    expectProblem(await f.call('GET', '/v1/confirm/cf_short'), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/confirm/cf_short', { body: { approve: true } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', held, { body: { approve: 'yes' } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', held, { body: {} }), 400, 'invalid_request');
  });

  it('answers 503 chain_unavailable on a server without a chain', async () => {
    expectProblem(await f.call('GET', '/v1/confirm?status=held'), 503, 'chain_unavailable');
    expectProblem(await f.call('GET', held), 503, 'chain_unavailable');
    expectProblem(await f.call('POST', held, { body: { approve: false } }), 503, 'chain_unavailable');
  });
});
