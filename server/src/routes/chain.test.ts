// routes/chain.ts over inject(): wallet:read for every view, queries checked before the chain
// is asked; a server without a chain answers 503 chain_unavailable.
import { describe, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();

describe('/v1/chain', () => {
  it('needs wallet:read for each view', async () => {
    for (const view of ['tokens', 'pools', 'positions', 'safety?token=WETH'])
      await expectGuarded(f, 'GET', `/v1/chain/${view}`, ['talk', 'wallet:act']);
  });

  it('refuses a bad query with 400 invalid_request', async () => {
    expectProblem(await f.call('GET', '/v1/chain/pools?pair=WETH'), 400, 'invalid_request');
    expectProblem(await f.call('GET', '/v1/chain/safety'), 400, 'invalid_request');
    expectProblem(await f.call('GET', `/v1/chain/safety?token=${'x'.repeat(65)}`), 400, 'invalid_request');
  });

  it('answers 503 chain_unavailable on a server without a chain', async () => {
    expectProblem(await f.call('GET', '/v1/chain/tokens'), 503, 'chain_unavailable');
    expectProblem(await f.call('GET', '/v1/chain/pools?pair=WETH-USDC'), 503, 'chain_unavailable');
  });
});
