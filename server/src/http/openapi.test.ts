// The OpenAPI document the server serves: valid OpenAPI 3.1 by a maintained validator
// (@readme/openapi-parser, which checks 3.1 against its schema and adds its own rules, such
// as unique operationIds), and complete for API tools: every operation has an operationId,
// described answers, the problems it can answer as application/problem+json, SSE where it
// streams, and `security: []` where no key is needed.

import { problemCatalogue } from '@presence/protocol';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/test-app';

type Response = { description: string; content?: Record<string, { schema: { properties?: { type?: { enum?: string[] } } } }> };
type Operation = { operationId?: string; security?: unknown[]; responses: Record<string, Response> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

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
    Object.entries(ops).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, op })),
  );
const op = (method: string, path: string) => doc.paths[path]?.[method] as Operation;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // validate() dereferences in place: it gets a copy.
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
  });

  it('gives every operation a unique operationId and a real description of each answer', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { at, op } of operations())
      for (const [status, r] of Object.entries(op.responses))
        expect({ at, status, description: r.description }).not.toMatchObject({ description: 'Default Response' });
  });

  it('documents the problems each operation can answer, as application/problem+json of their status', () => {
    for (const { at, op } of operations()) {
      const problems = Object.entries(op.responses).filter(([s]) => Number(s) >= 400);
      expect({ at, has500: problems.some(([s]) => s === '500') }).toEqual({ at, has500: true });
      for (const [status, r] of problems) {
        const types = r.content?.['application/problem+json']?.schema.properties?.type?.enum ?? [];
        expect({ at, status, types: types.length > 0 }).toEqual({ at, status, types: true });
        for (const type of types) expect(problemCatalogue[type as keyof typeof problemCatalogue].status).toBe(Number(status));
      }
    }
    const keyed = op('get', '/v1/memory').responses;
    expect(Object.keys(keyed)).toEqual(expect.arrayContaining(['200', '401', '403', '429', '500']));
    const intent = op('post', '/v1/wallet/intent').responses;
    expect(intent['409']?.content?.['application/problem+json']?.schema.properties?.type?.enum).toEqual(
      expect.arrayContaining(['policy_block', 'idempotency_in_progress']),
    );
    expect(Object.keys(intent)).toEqual(expect.arrayContaining(['200', '202', '400', '413', '415', '422', '503']));
  });

  it('says text/event-stream for the events stream and for streamed messages', () => {
    expect(Object.keys(op('get', '/v1/events').responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect(Object.keys(op('post', '/v1/messages').responses['200']?.content ?? {}).sort()).toEqual([
      'application/json',
      'text/event-stream',
    ]);
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
    // The rest inherit the document's `security: [{ bearer: [] }]`, and name Presence-Acting-For.
    const me = op('get', '/v1/presence/me') as { parameters?: { in: string; name: string }[] };
    expect(me.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'presence-acting-for' })]));
  });
});
