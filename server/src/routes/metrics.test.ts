// routes/metrics.ts over inject(): with a metrics token, GET /metrics needs exactly it (not a
// Presence key) and answers 401 auth otherwise (public without one: webhooks.test.ts scrapes it).
import { describe, expect, it } from 'vitest';
import { expectProblem, useRouteApp } from '../../test/route-fixture';

const token = 'scrape-secret-0123456789';
const f = useRouteApp({ app: { metricsToken: token } });

describe('GET /metrics', () => {
  it('needs the metrics token when one is set', async () => {
    expectProblem(await f.call('GET', '/metrics', { key: null }), 401, 'auth');
    expectProblem(await f.call('GET', '/metrics'), 401, 'auth');
    expectProblem(await f.call('GET', '/metrics', { key: `${token}x` }), 401, 'auth');
    const r = await f.call('GET', '/metrics', { key: token });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body).toContain('presence_');
  });

  // Lenient like /v1/health: a scraper's own parameters or a cache-buster must not read as the
  // target being down; and a query is never a credential (the token goes in the header only).
  it('ignores a query, which never stands for the token', async () => {
    const r = await f.call('GET', '/metrics?_=1733200000&format=text', { key: token });
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('presence_');
    expectProblem(await f.call('GET', `/metrics?token=${token}`, { key: null }), 401, 'auth');
    expectProblem(await f.call('GET', `/metrics?authorization=Bearer%20${token}`, { key: null }), 401, 'auth');
  });
});
