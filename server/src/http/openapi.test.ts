// The OpenAPI document the server serves: valid OpenAPI 3.1 by a maintained validator
// (@readme/openapi-parser, which checks 3.1 against its schema and adds its own rules, such
// as unique operationIds), and complete for API tools: every request and response body a
// named component (one `Problem` for every problem answer, its `type` narrowed per status),
// every operation with an operationId, a summary, a description and declared tags, the
// shared request headers and the response headers the server sends (checked against real
// answers), SSE frames where it streams, the server's own checks in the schemas, and
// `security: []` where no key is needed.

import { problemCatalogue } from '@presence/protocol';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/test-app';

type Json = Record<string, unknown>;
type Ref = { $ref: string };
type Response = { description: string; headers?: Record<string, Ref>; content?: Record<string, { schema: Json }> };
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: (Ref | { in: string; name: string; required?: boolean })[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, Response>;
};
type Document = {
  openapi: string;
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; parameters: Record<string, Json>; headers: Record<string, Json> };
};

let t: TestApp;
let doc: Document;
beforeAll(async () => {
  t = await startTestApp();
  const r = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(r.statusCode).toBe(200);
  doc = r.json();
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, method, path, op })),
  );
const op = (method: string, path: string) => doc.paths[path]?.[method] as Operation;
const refName = (x: unknown) => ((x as Ref | undefined)?.$ref ?? '').replace(/^#\/components\/\w+\//, '');
const paramNames = (o: Operation) => (o.parameters ?? []).map((p) => ('$ref' in p ? refName(p) : `${p.in}:${p.name}`));
const schema = (name: string) => doc.components.schemas[name] as { properties: Record<string, Json>; required?: string[] };

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // validate() dereferences in place: it gets a copy.
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
  });

  it('names a server, and declares every tag it uses with a description', () => {
    expect(doc.servers?.length).toBeGreaterThan(0);
    const declared = new Map((doc.tags ?? []).map((tag) => [tag.name, tag.description ?? '']));
    for (const { at, op } of operations())
      for (const tag of op.tags ?? [])
        expect({ at, tag, described: declared.get(tag) }).toMatchObject({ described: expect.stringMatching(/\w/) });
  });

  it('gives every operation a unique operationId, a summary, a description, a tag and a real description of each answer', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { at, op } of operations()) {
      expect({ at, summary: !!op.summary, description: (op.description ?? '').length > 20, tags: (op.tags ?? []).length }).toEqual({
        at,
        summary: true,
        description: true,
        tags: 1,
      });
      for (const [status, r] of Object.entries(op.responses))
        expect({ at, status, description: r.description }).not.toMatchObject({
          description: expect.stringMatching(/^(Default Response|Success)$/),
        });
    }
  });

  it('names every request and response body: a $ref to a component schema', () => {
    const unnamed: string[] = [];
    for (const { at, op } of operations()) {
      for (const [media, c] of Object.entries(op.requestBody?.content ?? {}))
        if (!refName(c.schema)) unnamed.push(`${at} request ${media}`);
      for (const [status, r] of Object.entries(op.responses))
        for (const [media, c] of Object.entries(r.content ?? {})) {
          const named = refName(c.schema) || refName((c.schema.allOf as unknown[] | undefined)?.[0]);
          // The document itself and the metrics text have no schema of their own.
          if (!named && !['GET /v1/openapi.json', 'GET /metrics'].includes(at)) unnamed.push(`${at} ${status} ${media}`);
        }
    }
    expect(unnamed).toEqual([]);
    for (const name of ['Presence', 'Problem', 'IntentDone', 'IntentHeld', 'PolicyDocument', 'Key', 'MessageResult'])
      expect(Object.keys(doc.components.schemas)).toContain(name);
    // One component where the request and the answer read alike; no leftovers.
    expect(Object.keys(doc.components.schemas)).not.toContain('ScopeInput');
  });

  it('answers problems as the one Problem schema, its type narrowed to the types of that status', () => {
    for (const { at, op } of operations()) {
      const problems = Object.entries(op.responses).filter(([s]) => Number(s) >= 400);
      expect({ at, has500: problems.some(([s]) => s === '500') }).toEqual({ at, has500: true });
      for (const [status, r] of problems) {
        const allOf = r.content?.['application/problem+json']?.schema.allOf as [Ref, { properties: { type: { enum: string[] } } }];
        expect({ at, status, ref: allOf[0].$ref }).toEqual({ at, status, ref: '#/components/schemas/Problem' });
        const types = allOf[1].properties.type.enum;
        expect(types.length).toBeGreaterThan(0);
        for (const type of types) expect(problemCatalogue[type as keyof typeof problemCatalogue].status).toBe(Number(status));
      }
    }
    const typesOf = (o: Operation, status: string) => {
      const allOf = o.responses[status]?.content?.['application/problem+json']?.schema.allOf as
        | [unknown, { properties: { type: { enum: string[] } } }]
        | undefined;
      return allOf?.[1].properties.type.enum;
    };
    expect(Object.keys(op('get', '/v1/memory').responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429', '500']));
    const intent = op('post', '/v1/wallet/intent');
    expect(typesOf(intent, '409')).toEqual(expect.arrayContaining(['policy_block', 'idempotency_in_progress']));
    expect(Object.keys(intent.responses)).toEqual(expect.arrayContaining(['200', '202', '400', '413', '415', '422', '503']));
    // /metrics says it can refuse, whether or not this server has PRESENCE_METRICS_TOKEN.
    expect(typesOf(op('get', '/metrics'), '401')).toEqual(['auth']);
  });

  it('declares the request headers: Idempotency-Key on keyed writes, Presence-Acting-For on keyed routes, Last-Event-ID on resumable streams', () => {
    for (const { at, method, op } of operations()) {
      const names = paramNames(op);
      expect({ at, requestId: names.includes('X-Request-Id') }).toEqual({ at, requestId: true });
      const keyed = names.includes('Presence-Acting-For');
      if (keyed && method !== 'get') expect({ at, idempotency: names.includes('Idempotency-Key') }).toEqual({ at, idempotency: true });
      if (!keyed) expect({ at, idempotency: names.includes('Idempotency-Key') }).toEqual({ at, idempotency: false });
    }
    expect(paramNames(op('get', '/v1/presence/me'))).toContain('Presence-Acting-For');
    expect(paramNames(op('get', '/v1/surface'))).not.toContain('Presence-Acting-For');
    expect(paramNames(op('post', '/v1/wallet/intent'))).toContain('Idempotency-Key');
    expect(paramNames(op('get', '/v1/events'))).toContain('Last-Event-ID');
    expect(paramNames(op('get', '/v1/surface/events'))).toContain('Last-Event-ID');
    expect(doc.components.parameters['Idempotency-Key']).toMatchObject({ in: 'header', name: 'Idempotency-Key' });
  });

  // Found by schemathesis: a key with Presence-Acting-For got an undocumented 400, and an unfit
  // X-Request-Id, documented by a pattern as if refused, was (as meant) accepted and replaced.
  it('documents what the server does with a misplaced Presence-Acting-For and an unfit X-Request-Id', async () => {
    for (const { at, op } of operations())
      if (paramNames(op).includes('Presence-Acting-For')) expect({ at, has400: '400' in op.responses }).toEqual({ at, has400: true });
    expect(op('get', '/v1/surface').responses['400']).toBeDefined();
    const acting = await t.app.inject({
      method: 'GET',
      url: '/v1/chain/tokens',
      headers: { authorization: `Bearer ${t.live}`, 'presence-acting-for': 'key_0000000000000000' },
    });
    expect(acting.statusCode).toBe(400);
    const unfit = await t.app.inject({ method: 'GET', url: '/v1/health', headers: { 'x-request-id': 'has space' } });
    expect(unfit.statusCode).toBe(200);
    expect(doc.components.parameters['X-Request-Id']).not.toHaveProperty('schema.pattern');
  });

  it('declares the response headers the server sends, on the answers that carry them', () => {
    for (const { at, op } of operations())
      for (const [status, r] of Object.entries(op.responses)) {
        expect({ at, status, requestId: !!r.headers?.['X-Request-Id'] }).toEqual({ at, status, requestId: true });
        if (['429', '503'].includes(status))
          expect({ at, status, retry: !!r.headers?.['Retry-After'] }).toEqual({ at, status, retry: true });
      }
    const ok = op('post', '/v1/memory/pin').responses['200']?.headers ?? {};
    expect(Object.keys(ok)).toEqual(
      expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Presence-Mode', 'Idempotent-Replayed']),
    );
    expect(Object.keys(op('get', '/v1/health').responses['200']?.headers ?? {})).toEqual(['X-Request-Id']);
  });

  it('declares every header real answers carry (a first and a replayed write, a read, a 401)', async () => {
    const ours = new Set(Object.keys(doc.components.headers).map((h) => h.toLowerCase()));
    const auth = { authorization: `Bearer ${t.live}` };
    const pin = {
      method: 'POST' as const,
      url: '/v1/memory/pin',
      headers: { ...auth, 'idempotency-key': 'doc-pin' },
      payload: { key: 'token:WETH' },
    };
    const answers = [
      { method: 'post', path: '/v1/memory/pin', r: await t.app.inject(pin) },
      { method: 'post', path: '/v1/memory/pin', r: await t.app.inject(pin) },
      { method: 'get', path: '/v1/presence/me', r: await t.app.inject({ method: 'GET', url: '/v1/presence/me', headers: auth }) },
      {
        method: 'get',
        path: '/v1/memory',
        r: await t.app.inject({ method: 'GET', url: '/v1/memory', headers: { authorization: 'Bearer prs_live_nope' } }),
      },
    ];
    expect(answers[1]?.r.headers['idempotent-replayed']).toBe('true');
    for (const { method, path, r } of answers) {
      const declared = Object.keys(op(method, path).responses[String(r.statusCode)]?.headers ?? {}).map((h) => h.toLowerCase());
      const sent = Object.keys(r.headers).filter((h) => ours.has(h));
      expect({ at: `${method} ${path} ${r.statusCode}`, undeclared: sent.filter((h) => !declared.includes(h)) }).toMatchObject({
        undeclared: [],
      });
    }
  });

  it('says text/event-stream, with the frames as a named schema, for the three streams', () => {
    const frames = (o: Operation) => refName(o.responses['200']?.content?.['text/event-stream']?.schema);
    expect(Object.keys(op('get', '/v1/events').responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect(frames(op('get', '/v1/events'))).toBe('EventsStreamFrame');
    expect(frames(op('get', '/v1/surface/events'))).toBe('SurfaceStreamFrame');
    expect(Object.keys(op('post', '/v1/messages').responses['200']?.content ?? {}).sort()).toEqual([
      'application/json',
      'text/event-stream',
    ]);
    expect(frames(op('post', '/v1/messages'))).toBe('TurnStreamFrame');
    const events = doc.components.schemas.EventsStreamFrame as { oneOf: { properties: { event: { const: string } } }[] };
    expect(events.oneOf.map((f) => f.properties.event.const).sort()).toEqual([
      'confirm',
      'error',
      'gap',
      'memory',
      'message',
      'needs_confirm',
      'tx',
    ]);
  });

  it('says in the schemas what the server checks: unique scopes, the pair’s shape, the safety view’s token, ASCII digits', () => {
    expect(schema('CreateKeyRequest').properties.scopes).toMatchObject({ uniqueItems: true });
    const pools = op('get', '/v1/chain/pools').parameters?.find((p) => 'name' in p && p.name === 'pair') as unknown as {
      schema: { pattern: string };
    };
    expect(new RegExp(pools.schema.pattern).test('WETH-USDC')).toBe(true);
    expect(new RegExp(pools.schema.pattern).test('WETH/USDC')).toBe(false);
    expect(op('get', '/v1/chain/safety').parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'query', name: 'token', required: true })]),
    );
    expect(JSON.stringify(doc)).not.toContain('\\\\d');
  });

  it('marks the routes that need no key with security: [] and every other one with the bearer key', () => {
    const open = operations()
      .filter(({ op }) => Array.isArray(op.security) && op.security.length === 0)
      .map(({ at }) => at)
      .sort();
    // The passkey pages' steps: their link's token is the credential (routes/enroll.ts, routes/approve.ts).
    const pages = ['/approve/{token}', '/approve/{token}/deny', '/approve/{token}/options', '/enroll/{token}', '/enroll/{token}/options'];
    expect(open).toEqual(
      ['GET /metrics', 'GET /v1/health', 'GET /v1/openapi.json', 'GET /v1/ready', ...pages.map((p) => `POST ${p}`)].sort(),
    );
    // Redeeming takes nothing or a surface token; the surface's own routes take a surface token.
    const others = Object.fromEntries(
      operations()
        .filter(({ op }) => op.security !== undefined && op.security.length > 0)
        .map(({ at, op }) => [at, op.security]),
    );
    expect(others).toEqual({
      'POST /v1/links/{code}/redeem': [{}, { surfaceToken: [] }],
      'GET /v1/surface': [{ surfaceToken: [] }],
      'GET /v1/surface/events': [{ surfaceToken: [] }],
      'POST /v1/surface/adopt': [{ surfaceToken: [] }],
    });
  });
});
