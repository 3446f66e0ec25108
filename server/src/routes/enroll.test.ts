// routes/enroll.ts over inject(): the Add passkey page and its steps take no key, only the
// link's token: a malformed token 400, an unknown one 404 (its page too), a bad answer 400.
import { describe, expect, it } from 'vitest';
import { expectProblem, useRouteApp } from '../../test/route-fixture';

const f = useRouteApp({ passkeys: true });
const unknownToken = 'A'.repeat(32);

describe('/enroll/:token', () => {
  it('refuses a malformed token with 400 and answers an unknown one 404 not_found', async () => {
    expectProblem(await f.call('POST', '/enroll/short/options', { key: null, body: {} }), 400, 'invalid_request');
    expectProblem(await f.call('POST', `/enroll/${unknownToken}/options`, { key: null, body: {} }), 404, 'not_found');
    const page = await f.call('GET', `/enroll/${unknownToken}`, { key: null });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it('serves a live link its options without a key, and refuses a malformed answer with 400', async () => {
    const token = (await f.call('POST', '/v1/passkeys/enroll', { body: {} })).json().url.split('/').pop() as string;
    const options = await f.call('POST', `/enroll/${token}/options`, { key: null, body: {} });
    expect(options.statusCode).toBe(200);
    expect(options.json().challenge).toEqual(expect.any(String));
    expectProblem(await f.call('POST', `/enroll/${token}`, { key: null, body: { id: 'x' } }), 400, 'invalid_request');
    expectProblem(await f.call('POST', `/enroll/${token}/options`, { key: null, body: { more: 1 } }), 400, 'invalid_request');
  });

  it('opens its page with whatever query a messenger adds, and answers a malformed token the HTML "not valid" page', async () => {
    const token = (await f.call('POST', '/v1/passkeys/enroll', { body: {} })).json().url.split('/').pop() as string;
    const plain = await f.call('GET', `/enroll/${token}`, { key: null });
    const tracked = await f.call('GET', `/enroll/${token}?utm_source=telegram&fbclid=IwAR0x`, { key: null });
    expect([plain.statusCode, tracked.statusCode]).toEqual([200, 200]);
    expect(tracked.headers['content-type']).toMatch(/^text\/html/);
    expect(tracked.body).toContain('<title>Add passkey');
    for (const url of ['/enroll/short', `/enroll/${token.slice(0, 10)}`, '/enroll/not%20a%20token!?x=1']) {
      const page = await f.call('GET', url, { key: null });
      expect([url, page.statusCode, page.headers['content-type']]).toEqual([url, 404, expect.stringMatching(/^text\/html/)]);
      expect(page.body).toContain('<title>Link not valid');
    }
  });
});
