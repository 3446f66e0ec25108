// routes/meta.ts over inject(): health, readiness and the OpenAPI document need no key (a bad
// one is ignored); what no route serves is a problem too (404 not_found, 405 method_not_allowed).
import { describe, expect, it } from 'vitest';
import { expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp();

describe('meta routes', () => {
  it('serve health, readiness and the document without a key', async () => {
    const health = await f.call('GET', '/v1/health', { key: 'prs_live_not_a_key' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ ok: true, chain: null, store: { kind: 'lowdb' } });
    expect((await f.call('GET', '/v1/ready', { key: null })).statusCode).toBe(200);
    const doc = await f.call('GET', '/v1/openapi.json', { key: null });
    expect(doc.json().openapi).toMatch(/^3\.1\./);
  });

  it('answer an unknown path 404 not_found and a wrong method 405 method_not_allowed', async () => {
    expectProblem(await f.call('GET', '/v1/nowhere', { key: null }), 404, 'not_found');
    const wrong = await f.call('POST', '/v1/health', { key: null });
    expectProblem(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.allow).toMatch(/GET/);
  });

  // Found by schemathesis: the not-found answer used to parse the body first.
  it('answer what no route serves 404/405 before reading its body', async () => {
    const json = { 'content-type': 'application/json' };
    const bad = (url: string, method: string, headers: Record<string, string>) =>
      f.t.app.inject({ method: method as 'POST', url, headers, payload: '{' });
    expectProblem(await bad('/v1/health', 'PATCH', json), 405, 'method_not_allowed');
    expectProblem(await bad('/v1/nowhere', 'POST', json), 404, 'not_found');
    // QUERY (RFC 10008) must carry a Content-Type: Fastify refused it 400 before routing.
    const query = await f.t.app.inject({ method: 'QUERY' as 'GET', url: '/v1/health' });
    expectProblem(query, 405, 'method_not_allowed');
    expect(query.headers.allow).toMatch(/GET/);
  });
});
