// A route file's operations declared in one place, beside its route plugin, each by its
// operationId: who may call it (a key's scope, or a surface token), what the OpenAPI document
// says of it (summary, description, what its success answer means, the problems it adds), what
// is validated (params, querystring, body) and what it answers (its status and body), with
// what the file's operations share (their tag, a default scope) said once. `operations` turns
// each into the `{ config, schema }` Fastify reads — auth reads `config`, validation and the
// OpenAPI transform (openapi.ts) read `schema` — as @hono/zod-openapi's createRoute does. The
// plugin then reads as the list of its routes and their handlers:
// `app.get('/v1/keys', op.listKeys, handler)`. The zod schemas keep their types through it,
// so Fastify still infers each handler's request and answer.
import type { ScopeRequirement } from '@presence/core';
import type { ProblemType } from '@presence/protocol';
import type { FastifyContextConfig } from 'fastify';
import { z } from 'zod';
import type { OperationDoc } from './openapi';

type Success = 200 | 201 | 202 | 204;

/** One operation as its route file declares it (its operationId is its name there). */
export type OperationSpec = {
  summary: string;
  description: string;
  /** The key scope it needs (the file's default when absent); no scope and no surface: public. */
  scope?: ScopeRequirement;
  /** For a surface token itself, not a key. */
  surface?: true;
  /** It manages Idempotency-Key itself (a turn). */
  ownIdempotency?: true;
  /** What its success answer means (with `status` and `response`)… */
  answer?: string;
  /** …its status (200 unless said)… */
  status?: Success;
  /** …and its body (none for a 204, or where the document says only `object`). */
  response?: z.ZodType;
  /** Several success answers instead (an action: 200 done, 202 held): what each means, and its body. */
  answers?: Partial<Record<Success, string>>;
  responses?: Partial<Record<Success, z.ZodType>>;
  /** Problem types it answers beyond those of its kind (openapi.ts adds those). */
  problems?: readonly ProblemType[];
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  stream?: OperationDoc['stream'];
  text?: string;
};

type Field<S, K extends string> = S extends { [k in K]: infer T } ? T : undefined;
type ResponseOf<S> = S extends { responses: infer R }
  ? R
  : S extends { response: infer R }
    ? { [k in S extends { status: infer C extends Success } ? C : 200]: R }
    : undefined;

/** What Fastify gets: the zod schemas with their own types, so handlers are typed by them. */
export type Declared<S extends OperationSpec> = {
  config?: FastifyContextConfig;
  schema: {
    operationId: string;
    openapi: OperationDoc;
    summary: string;
    description: string;
    tags: string[];
    params: Field<S, 'params'>;
    querystring: Field<S, 'querystring'>;
    body: Field<S, 'body'>;
    response: ResponseOf<S>;
  };
};

/** Only the fields that are set: Fastify and the document tell an absent key from an undefined one. */
const defined = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

type Shared = { tag: string; scope?: ScopeRequirement };

/**
 * The query of an operation that declares none: no parameter at all. A parameter a route does
 * not name is a 400 naming it (a misspelt `limt` is not silently the default), as an unknown
 * body field is. Public operations (health, readiness, the document, /metrics) stay lenient: a
 * probe or a cache-busting `?_=…` a monitor adds has no other effect there, and refusing it
 * would read as the server being down.
 */
const NoQuery = z.strictObject({});

/**
 * A route file's operations: what they share (their tag, the scope they need unless they say),
 * then each by its operationId.
 */
export const operations =
  (shared: Shared) =>
  <const M extends Record<string, OperationSpec>>(specs: M): { [K in keyof M]: Declared<M[K]> } =>
    Object.fromEntries(Object.entries(specs).map(([id, spec]) => [id, declare(shared, id, spec)])) as never;

function declare(shared: Shared, operationId: string, spec: OperationSpec) {
  const tags = [shared.tag];
  const { scope = shared.scope, surface, ownIdempotency, status = 200, answer, response } = spec;
  const answers = spec.answers ?? (answer === undefined ? undefined : { [status]: answer });
  const responses = spec.responses ?? (response === undefined ? undefined : { [status]: response });
  const openapi = defined({ answers, problems: spec.problems, stream: spec.stream, text: spec.text });
  const schema = defined({
    operationId,
    openapi,
    summary: spec.summary,
    description: spec.description,
    tags,
    params: spec.params,
    querystring: spec.querystring ?? (scope !== undefined || surface ? NoQuery : undefined),
    body: spec.body,
    response: responses,
  });
  const config = defined({ scope, surface, ownIdempotency });
  // A public route declares no config at all, as Fastify's own routes do.
  return Object.keys(config).length > 0 ? { config, schema } : { schema };
}
