// routes/memory.ts over inject(): memory:read to list, memory:write to pin and forget, keywords
// checked, 404 for forgetting what is not there.
import { describe, expect, it } from 'vitest';
import { expectGuarded, expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();

describe('/v1/memory', () => {
  it('needs memory:read to list and memory:write to pin or forget', async () => {
    await expectGuarded(f, 'GET', '/v1/memory', ['talk', 'memory:write']);
    await expectGuarded(f, 'POST', '/v1/memory/pin', ['memory:read'], { key: 'token:WETH' });
    await expectGuarded(f, 'DELETE', '/v1/memory/token:WETH', ['memory:read']);
  });

  it('refuses a malformed keyword or body with 400 invalid_request', async () => {
    expectProblem(await f.call('POST', '/v1/memory/pin', { body: { key: 'WETH' } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/memory/pin', { body: { key: 'token:WETH', note: 'x'.repeat(501) } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/v1/memory/pin', { body: { key: 'token:WETH', tier: 'pinned' } }), 400, 'invalid_request');
    expectProblem(await f.call('DELETE', '/v1/memory/colour:blue'), 400, 'invalid_request');
  });

  it('pins, then answers forgetting an unknown keyword 404 not_found', async () => {
    expect((await f.call('POST', '/v1/memory/pin', { body: { key: 'token:WETH' } })).statusCode).toBe(200);
    expect((await f.call('DELETE', '/v1/memory/token:WETH')).statusCode).toBe(200);
    expectProblem(await f.call('DELETE', '/v1/memory/token:WETH'), 404, 'not_found');
  });
});
