// routes/wallet.ts over inject(): scopes per route (wallet:read, wallet:act, admin), bodies
// checked before the chain is asked, the policy served without one, 503 without a chain.
import { describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();
const withdrawal = { to: '0x000000000000000000000000000000000000dEaD', amount: '1 USDC' };

describe('/v1/wallet', () => {
  it('needs wallet:read to look, wallet:act to act and admin to set the policy or withdraw', async () => {
    await expectGuarded(f, 'GET', '/v1/wallet', ['talk']);
    await expectGuarded(f, 'GET', '/v1/wallet/policy', ['memory:read']);
    await expectGuarded(f, 'POST', '/v1/wallet/intent', ['wallet:read'], { do: 'swap 1 USDC for WETH' });
    await expectGuarded(f, 'POST', '/v1/wallet/withdraw', ['wallet:read', 'wallet:act'], withdrawal);
    const policy = (await f.call('GET', '/v1/wallet/policy')).json();
    await expectGuarded(f, 'PUT', '/v1/wallet/policy', ['wallet:read', 'wallet:act'], policy);
  });

  it('refuses bad bodies with 400 invalid_request', async () => {
    expectProblem(await f.call('POST', '/v1/wallet/intent', { body: { do: '' } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/wallet/intent', { body: { text: 'swap' } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/wallet/withdraw', { body: { to: 'nowhere', amount: '1' } }), 400, 'invalid_request');
    expectProblem(await f.call('PUT', '/v1/wallet/policy', { body: {} }), 400, 'invalid_request');
  });

  it('serves the policy without a chain, and answers the wallet itself 503 chain_unavailable', async () => {
    expect((await f.call('GET', '/v1/wallet/policy')).statusCode).toBe(200);
    expectProblem(await f.call('GET', '/v1/wallet'), 503, 'chain_unavailable');
    expectProblem(await f.call('POST', '/v1/wallet/intent', { body: { do: 'swap 1 USDC for WETH' } }), 503, 'chain_unavailable');
  });
});
