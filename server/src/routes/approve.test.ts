// routes/approve.ts over inject(): a hold's approve page and its steps take no key, only the
// link's token: a malformed token 400, an unknown one 404 (its page too), a bad answer 400.
// (Approving a real hold needs a chain: test/src covers it end to end.)
import { describe, expect, it } from 'vitest';
import { expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp({ passkeys: true });
const unknownToken = 'B'.repeat(40);

describe('/approve/:token', () => {
  it('refuses a malformed token with 400 invalid_request', async () => {
    expectProblem(await f.call('POST', '/approve/short/options', { key: null, body: {} }), 400, 'invalid_request');
    expectProblem(await f.call('POST', '/approve/bad%20token%20with%20spaces!/deny', { key: null, body: {} }), 400, 'invalid_request');
  });

  it('answers an unknown link 404 not_found, and its page a 404 page', async () => {
    expectProblem(await f.call('POST', `/approve/${unknownToken}/options`, { key: null, body: {} }), 404, 'not_found');
    expectProblem(await f.call('POST', `/approve/${unknownToken}/deny`, { key: null, body: {} }), 404, 'not_found');
    const page = await f.call('GET', `/approve/${unknownToken}`, { key: null });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('answers its page with a malformed token the same HTML page as an unknown one, a query ignored', async () => {
    for (const url of ['/approve/short', '/approve/bad%20token%20with%20spaces!', `/approve/${unknownToken}?utm_source=chat`]) {
      const page = await f.call('GET', url, { key: null });
      expect([url, page.statusCode, page.headers['content-type']]).toEqual([url, 404, expect.stringMatching(/^text\/html/)]);
      expect(page.body).toContain('<title>Link not valid');
    }
  });

  it('refuses a malformed assertion with 400 before looking the link up', async () => {
    expectProblem(await f.call('POST', `/approve/${unknownToken}`, { key: null, body: { id: 1 } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', `/approve/${unknownToken}/deny`, { key: null, body: { why: 'no' } }), 400, 'invalid_request');
  });
});
