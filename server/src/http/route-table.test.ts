// Route plumbing through the real app: a method a route lacks is 405 with Allow; every write
// refuses a body field it does not know (checked over the OpenAPI document, so a route added
// later is checked too); Presence-Acting-For with a key is refused; and what a log line shows
// of a URL is its route's pattern or its known prefix, never a path or query the caller chose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';
import { productionLogger } from '../logger';
import { createRouteTable, UNKNOWN_SEGMENT } from './route-table';

let t: TestApp;
const lines: Record<string, { url?: string } | string | number>[] = [];
beforeAll(async () => {
  t = await startTestApp({ app: { logger: productionLogger('info', { write: (l) => void lines.push(JSON.parse(l)) }) } });
});
afterAll(() => t.close());

type Operation = { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } };

describe('a method a route lacks', () => {
  it.each([
    ['TRACE', '/v1/keys', 'GET, HEAD, POST'],
    ['PUT', '/v1/links', 'POST'],
    ['GET', '/v1/links/ABCDEFGHJKLMNPQRSTUV/redeem', 'POST'],
    ['PATCH', '/v1/wallet/policy', 'GET, HEAD, PUT'],
    ['POST', '/v1/health', 'GET, HEAD'],
  ] as const)('%s %s is 405 with Allow: %s', async (method, url, allow) => {
    const r = await t.app.inject({ method, url, headers: bearer(t.live) });
    expect([r.statusCode, r.json().type, r.headers.allow]).toEqual([405, 'method_not_allowed', allow]);
    expect(r.json().detail).not.toContain('ABCDEFGH');
  });

  it('leaves a path no route has a 404', async () => {
    const r = await t.app.inject({ method: 'TRACE', url: '/v1/nowhere', headers: bearer(t.live) });
    expect([r.statusCode, r.headers.allow]).toEqual([404, undefined]);
  });
});

describe('every write', () => {
  it('refuses a field its body schema does not name (400), at every level of every request body', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const loose: string[] = [];
    const walk = (at: string, s: Record<string, unknown> | undefined) => {
      if (!s || typeof s !== 'object') return;
      if (s.type === 'object' && s.properties && s.additionalProperties !== false) loose.push(at);
      for (const v of Object.values(s)) {
        if (Array.isArray(v)) for (const x of v) walk(at, x as Record<string, unknown>);
        else if (v && typeof v === 'object') walk(at, v as Record<string, unknown>);
      }
    };
    let bodies = 0;
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content['application/json']?.schema;
        if (schema) bodies++;
        walk(`${method.toUpperCase()} ${path}`, schema);
      }
    expect(bodies).toBeGreaterThanOrEqual(10);
    expect(loose).toEqual([]);
  });

  it.each([
    ['POST', '/v1/links', { extra: 1 }],
    ['POST', '/v1/keys', { name: 'k', scopes: ['talk'], extra: 1 }],
    ['POST', '/v1/messages', { text: 'hi', extra: 1 }],
    ['POST', '/v1/wallet/intent', { do: 'swap 1 USDC for WETH', extra: 1 }],
  ] as const)('%s %s with an unknown field is 400', async (method, url, payload) => {
    const r = await t.app.inject({ method, url, headers: bearer(t.live), payload });
    expect([r.statusCode, r.json().type]).toEqual([400, 'invalid_request']);
  });

  it('POST /v1/keys/{id}/rotate with an unknown field is 400', async () => {
    const keys = (await t.app.inject({ method: 'GET', url: '/v1/keys', headers: bearer(t.live) })).json().keys as { id: string }[];
    const id = keys[0]?.id;
    const r = await t.app.inject({ method: 'POST', url: `/v1/keys/${id}/rotate`, headers: bearer(t.live), payload: { grace_s: 1, x: 1 } });
    expect([r.statusCode, r.json().type]).toEqual([400, 'invalid_request']);
  });
});

describe('Presence-Acting-For with a key', () => {
  it.each(['', '0', 'D', 'key_AAAAAAAAAAAAAAAA'])('(%j) is 400, not ignored', async (acting) => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/presence/me', headers: { ...bearer(t.live), 'presence-acting-for': acting } });
    expect([r.statusCode, r.json().type]).toEqual([400, 'invalid_request']);
  });
});

describe('the URL in a log line', () => {
  it('is the route pattern, or the path up to its first unknown segment, never a query', async () => {
    lines.length = 0;
    const secret = 'prs_live_SECRETSECRETSECRETSECRETSECRETSECRET';
    const sent: [string, string, string][] = [
      ['GET', `/v1/health?${secret}`, '/v1/health'],
      ['GET', `/v1/keys/${secret}`, '/v1/keys/:id'],
      ['DELETE', `/v1/keys/${secret}`, '/v1/keys/:id'],
      ['POST', '/v1/links/SECRETCODE/redeem', '/v1/links/:code/redeem'],
      ['GET', '/v1/links/SECRETCODE', `/v1/links/${UNKNOWN_SEGMENT}`],
      ['GET', '/SECRETCODE', `/${UNKNOWN_SEGMENT}`],
      ['GET', '/v1/linksSECRETCODE?x=SECRETCODE', `/v1/${UNKNOWN_SEGMENT}`],
    ];
    for (const [method, url] of sent) await t.app.inject({ method: method as 'GET', url, headers: bearer(t.live), payload: undefined });
    const urls = lines.flatMap((l) => (typeof l.req === 'object' && l.req.url ? [l.req.url] : []));
    for (const [, , logged] of sent) expect(urls).toContain(logged);
    expect(JSON.stringify(lines)).not.toMatch(/SECRET/);
  });
});

describe('the route table', () => {
  const table = createRouteTable();
  table.add(['GET', 'HEAD'], '/v1/memory/search');
  table.add('DELETE', '/v1/memory/:key');
  table.add('OPTIONS', '*');
  it('matches the most literal pattern, with the methods of every pattern the path fits', () => {
    expect(table.match('/v1/memory/search')).toEqual({ pattern: '/v1/memory/search', methods: ['DELETE', 'GET', 'HEAD'] });
    expect(table.match('/v1/memory/x')).toEqual({ pattern: '/v1/memory/:key', methods: ['DELETE'] });
    expect(table.match('/v2')).toBeNull();
  });
  it('keeps only the segments some route names', () => {
    expect(table.knownPrefix('/v1/memory/x/y?q')).toBe(`/v1/memory/${UNKNOWN_SEGMENT}`);
    expect(table.knownPrefix('//v1')).toBe(`/${UNKNOWN_SEGMENT}`);
    expect(table.knownPrefix('/V1/memory')).toBe(`/${UNKNOWN_SEGMENT}`);
  });
});
