// The OpenAPI document's per-operation details, derived from what each route declares so the
// document cannot drift from the server: `security: []` on routes without a scope; every
// problem the route can answer (application/problem+json, grouped by status), from its kind
// (keyed, a write, with a body, with path parameters) plus the types it names in
// `schema.openapi.problems`; real descriptions of its success answers; `text/event-stream`
// where it streams. zod → JSON Schema stays fastify-type-provider-zod's.
import {
  ACTING_FOR_HEADER,
  type Problem as ProblemBody,
  Problem as ProblemSchema,
  type ProblemType,
  problemCatalogue,
} from '@presence/protocol';
import type { RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** What a route says about itself for the document (`schema.openapi`); Fastify ignores it. */
export type OperationDoc = {
  /** The success answers, by status: what each means. */
  answers?: Record<number, string>;
  /** Problem types this route answers beyond those of its kind. */
  problems?: readonly ProblemType[];
  /** Its 200 is an SSE stream: always ('only'), or when the request asks for one ('also'). */
  stream?: 'only' | 'also';
  /** Its 200 is plain text of this media type (the metrics exposition). */
  text?: string;
};

declare module 'fastify' {
  interface FastifySchema {
    openapi?: OperationDoc;
  }
}

type JsonSchema = Record<string, unknown>;
type TransformInput = Parameters<typeof jsonSchemaTransform>[0] & { route: RouteOptions };

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const PROBLEM_TYPE = 'application/problem+json';
const problemJson = z.toJSONSchema(ProblemSchema, { io: 'output', target: 'draft-2020-12' }) as JsonSchema;
delete problemJson.$schema;

/** What any route of this kind can answer, beyond its own declared problems. */
function problemsOf(route: RouteOptions, schema: JsonSchema): Set<ProblemType> {
  const keyed = route.config?.scope !== undefined || route.config?.surface === true;
  const method = [route.method].flat()[0] as string;
  const out = new Set<ProblemType>(['internal']);
  if (schema.body || schema.querystring || schema.params || (keyed && WRITES.has(method))) out.add('invalid_request');
  if (schema.body) {
    out.add('payload_too_large');
    out.add('unsupported_media_type');
  }
  if (route.url.includes(':')) out.add('uri_too_long');
  if (keyed) {
    // Authenticating reads the store: on PostgreSQL any keyed route can find it gone.
    out.add('store_unavailable');
    out.add('auth');
    out.add('scope');
    out.add('rate_limited');
    if (WRITES.has(method)) {
      out.add('idempotency_in_progress');
      out.add('idempotency_mismatch');
    }
  }
  for (const t of schema.openapi ? ((schema.openapi as OperationDoc).problems ?? []) : []) out.add(t);
  return out;
}

/** One response per status, its body the problem schema with `type` narrowed to that status's types. */
function problemResponses(types: Set<ProblemType>): Record<string, JsonSchema> {
  const byStatus = new Map<number, ProblemType[]>();
  for (const t of types) {
    const s = problemCatalogue[t].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), t]);
  }
  const out: Record<string, JsonSchema> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const properties = { ...(problemJson.properties as JsonSchema), type: { type: 'string', enum: list } };
    out[status] = {
      description: list.map((t) => `\`${t}\`: ${problemCatalogue[t].title}`).join('; '),
      content: { [PROBLEM_TYPE]: { schema: { ...problemJson, properties } } },
    };
  }
  return out;
}

const EVENT_STREAM = {
  schema: { type: 'string', description: 'Server-Sent Events (see docs/api.md for the events and their data)' },
};

/** Every keyed route may be called by a surface token acting for a key it linked. */
function withActingFor(headers: JsonSchema | undefined): JsonSchema {
  const base = headers ?? { type: 'object', properties: {} };
  return {
    ...base,
    properties: {
      ...(base.properties as JsonSchema),
      [ACTING_FOR_HEADER]: {
        type: 'string',
        pattern: '^key_[0-9A-Za-z]{16}$',
        description:
          'With a surface token as bearer: the linked key (key_…) the request runs as, with its scopes, its rate limit and its account. A key the surface did not link is 403; a revoked one 401.',
      },
    },
  };
}

export function createOpenapiTransform(opts: { metricsSecurity: Record<string, string[]>[] }) {
  return (input: TransformInput) => {
    const { openapi: doc = {}, ...rest } = (input.schema ?? {}) as JsonSchema & { openapi?: OperationDoc };
    const out = jsonSchemaTransform({ ...input, schema: rest } as Parameters<typeof jsonSchemaTransform>[0]);
    const schema = out.schema as JsonSchema;
    if (!schema || schema.hide) return out;
    const responses: Record<string, JsonSchema> = {};
    const given = (schema.response ?? {}) as Record<string, JsonSchema>;
    for (const [code, body] of Object.entries(given)) {
      const content: JsonSchema = { 'application/json': { schema: body } };
      if (code === '200' && doc.stream === 'also') content['text/event-stream'] = EVENT_STREAM;
      responses[code] = { description: doc.answers?.[Number(code)] ?? 'Success', content };
    }
    if (!given['200'] && !given['201'] && !given['202']) {
      const content = doc.stream
        ? { 'text/event-stream': EVENT_STREAM }
        : doc.text
          ? { [doc.text]: { schema: { type: 'string' } } }
          : { 'application/json': { schema: { type: 'object' } } };
      responses['200'] = { description: doc.answers?.[200] ?? 'Success', content };
    }
    Object.assign(responses, problemResponses(problemsOf(input.route, { ...rest, openapi: doc })));
    schema.response = responses;
    if (input.route.config?.surface) schema.security = [{ surfaceToken: [] }];
    else if (input.route.config?.scope === undefined)
      // Redeeming takes no credential, or a surface token (which links the key through it).
      schema.security = input.url === '/metrics' ? opts.metricsSecurity : input.url.endsWith('/redeem') ? [{}, { surfaceToken: [] }] : [];
    else schema.headers = withActingFor(schema.headers as JsonSchema | undefined);
    return { ...out, schema };
  };
}

/** For tests: a problem body's shape as the document describes it. */
export type DocumentedProblem = ProblemBody;
