// Every failure is problem+json, Fastify's own included: the one error path, through the real app.
import { PresenceError } from '@presence/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';
import { problem, problemFor } from './problem';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const expectProblem = (r: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, type: string) => {
  expect(r.statusCode).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  // Every problem names the request it answers, as the X-Request-Id header does.
  const id = r.headers['x-request-id'];
  expect(id).toEqual(expect.any(String));
  expect(r.json()).toEqual({ type, title: expect.any(String), status, detail: expect.any(String), request_id: id });
};

describe('problem mapping of framework errors', () => {
  const pin = (payload: string, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url: '/v1/memory/pin', headers: { ...bearer(t.live), 'content-type': contentType }, payload });

  it('404 for an unknown route, without echoing the query', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/nowhere?secret=s3cr3t' });
    expectProblem(r, 404, 'not_found');
    expect(r.body).not.toContain('s3cr3t');
  });

  it('415 for a body that is not JSON by its content type', async () => {
    expectProblem(await pin('key=x', 'text/plain'), 415, 'unsupported_media_type');
  });

  it('413 for a body over 64 KiB', async () => {
    expectProblem(await pin(JSON.stringify({ key: 'k', note: 'x'.repeat(70 * 1024) })), 413, 'payload_too_large');
  });

  it('400 for bad JSON and for a body the schema refuses', async () => {
    const bad = await pin('{"key":');
    expectProblem(bad, 400, 'invalid_request');
    expect(bad.json().detail).toBe('body is not valid JSON');
    const invalid = await pin(JSON.stringify({ note: 'no key' }));
    expectProblem(invalid, 400, 'invalid_request');
    expect(invalid.json().detail).toBe('`key` is required');
  });

  it("400 for an empty JSON body says so in our words, not Fastify's", async () => {
    const empty = await pin('');
    expectProblem(empty, 400, 'invalid_request');
    // Was "Body cannot be empty when content-type is set to 'application/json'".
    expect(empty.json().detail).toBe('body is empty: send a JSON object');
  });

  it('414 for an overlong path segment', async () => {
    expectProblem(
      await t.app.inject({ method: 'DELETE', url: `/v1/memory/${'k'.repeat(200)}`, headers: bearer(t.live) }),
      414,
      'uri_too_long',
    );
  });

  it('500 for an unexpected error, with no stack and nothing of the error in the body', async () => {
    t.app.get('/v1/boom', async () => {
      throw new Error('secret internals at /srv/app.ts:12');
    });
    const r = await t.app.inject({ method: 'GET', url: '/v1/boom' });
    expectProblem(r, 500, 'internal');
    expect(r.body).not.toContain('secret internals');
  });
});

describe('problem() and problemFor()', () => {
  it('build bodies from the catalogue: type, title, status, detail (and the request id when there is a request)', () => {
    expect(problem('conflict', 'already there')).toEqual({ type: 'conflict', title: 'Conflict', status: 409, detail: 'already there' });
    expect(problem('conflict', 'already there', 'req-1')).toMatchObject({ type: 'conflict', request_id: 'req-1' });
  });

  it('keep a PresenceError’s own problem, extension members included', () => {
    const e = new PresenceError('rate_limited', 'slow down', { retryAfter: 5, extra: { limit: 'streams_per_key' } });
    expect(problemFor(e)).toEqual(e.toProblem());
    expect(problemFor(e)).toMatchObject({ limit: 'streams_per_key', status: 429 });
  });

  it('turn anything else into an internal problem with the detail the caller chose', () => {
    expect(problemFor(new TypeError('x is undefined'), undefined, 'the turn failed')).toMatchObject({
      type: 'internal',
      status: 500,
      detail: 'the turn failed',
    });
  });
});
