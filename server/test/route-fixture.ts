// For the routes' own inject() tests (src/routes/*.test.ts): one real app per test file
// (test-app.ts: a real core on lowdb in a temporary directory, no chain), keys holding just the
// scopes a test names, and the assertions every such test makes of a problem answer.
import type { Scope } from '@presence/protocol';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { bearer, startTestApp, type TestApp } from './test-app';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type CallOptions = {
  /** The bearer (default: the account's live admin key); null sends no Authorization. */
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
};

export type RouteFixture = {
  /** The app and core, once beforeAll has run. */
  readonly t: TestApp;
  call(method: Method, url: string, options?: CallOptions): Promise<LightMyRequestResponse>;
  /** A live key of the account holding exactly these scopes (made once per set). */
  keyWith(...scopes: Scope[]): Promise<string>;
};

/** Starts the app before this file's tests and closes it after them. */
export function useRouteApp(options: Parameters<typeof startTestApp>[0] = {}): RouteFixture {
  let app: TestApp | undefined;
  const keys = new Map<string, Promise<string>>();
  // A route's first request compiles its validators and serializers: seconds on a loaded
  // machine, past vitest's 5 s default. A limit, not a measure: these tests assert no time.
  vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });
  beforeAll(async () => {
    app = await startTestApp(options);
  });
  afterAll(async () => {
    await app?.close();
  });
  const f: RouteFixture = {
    get t() {
      if (!app) throw new Error('the route app starts in beforeAll');
      return app;
    },
    call(method, url, { key = f.t.live, body, headers = {} } = {}) {
      return f.t.app.inject({
        method,
        url,
        headers: { ...(key === null ? {} : bearer(key)), ...headers },
        ...(body === undefined ? {} : { payload: body as object }),
      });
    },
    keyWith(...scopes) {
      const name = scopes.join(',');
      let made = keys.get(name);
      if (!made) {
        made = f.call('POST', '/v1/keys', { body: { name: `only ${name}`, scopes } }).then((r) => {
          expect(r.statusCode).toBe(201);
          return (r.json() as { secret: string }).secret;
        });
        keys.set(name, made);
      }
      return made;
    },
  };
  return f;
}

/** The answer is a problem+json of this status and type. */
export function expectProblem(res: LightMyRequestResponse, status: number, type: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ type, status });
}

/** The route is keyed: without a key 401 auth, and with a key holding only `others` 403 scope. */
export async function expectGuarded(f: RouteFixture, method: Method, url: string, others: Scope[], body?: unknown) {
  expectProblem(await f.call(method, url, { key: null, body }), 401, 'auth');
  expectProblem(await f.call(method, url, { key: await f.keyWith(...others), body }), 403, 'scope');
}
