// The OpenAPI document's per-operation details, derived from what each route declares so the
// document cannot drift from the server: `security` by the route's kind; every problem the
// route can answer (application/problem+json, grouped by status, each a `Problem` with `type`
// narrowed to that status's types), from its kind (keyed, a write, with a body, with path
// parameters) plus the types it names in `schema.openapi.problems`; real descriptions of its
// success answers; `text/event-stream` with its frame schema where it streams; and which of
// the shared request and response headers apply (`x-presence-headers`, turned into `$ref`s by
// openapi-document.ts). zod → JSON Schema stays fastify-type-provider-zod's; body schemas are
// named by their zod metadata (`.meta({ id })`).
import { type ProblemType, problemCatalogue } from '@presence/protocol';
import type { RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { componentRef, type HeaderUse, namedRef, type ParameterName, type ResponseHeaderName } from './openapi-document';

/** What a route says about itself for the document (`schema.openapi`); Fastify ignores it. */
export type OperationDoc = {
  /** The success answers, by status: what each means. */
  answers?: Record<number, string>;
  /** Problem types this route answers beyond those of its kind. */
  problems?: readonly ProblemType[];
  /**
   * Its 200 is an SSE stream of `frames` (a named zod schema, one member per event): always
   * ('only'), or when the request asks for one ('also'); `resume`: it honours Last-Event-ID.
   */
  stream?: { frames: z.ZodType; when: 'only' | 'also'; resume?: boolean };
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

/** The route's kind, as the server's hooks see it (auth.ts, idempotency.ts). */
function kindOf(route: RouteOptions) {
  const method = [route.method].flat()[0] as string;
  const keyed = route.config?.scope !== undefined;
  const surface = route.config?.surface === true;
  return {
    keyed,
    surface,
    write: WRITES.has(method),
    // The idempotency hooks attach to keyed writes only.
    idempotent: keyed && WRITES.has(method),
    // Counted against a key, a surface token, or (redeeming) an address or a surface token.
    rateLimited: keyed || surface || route.url.endsWith('/redeem'),
  };
}
type Kind = ReturnType<typeof kindOf>;

/** What any route of this kind can answer, beyond its own declared problems. */
function problemsOf(route: RouteOptions, kind: Kind, schema: JsonSchema, doc: OperationDoc): Set<ProblemType> {
  const authed = kind.keyed || kind.surface;
  // Node refuses any request whose headers are too large or that does not arrive in time.
  const out = new Set<ProblemType>(['internal', 'request_timeout', 'headers_too_large']);
  // Any keyed or surface route refuses a misplaced Presence-Acting-For (with a key as bearer,
  // or on a surface's own route) 400 invalid_request, whatever else it takes.
  if (schema.body || schema.querystring || schema.params || authed) out.add('invalid_request');
  if (doc.stream?.resume) out.add('invalid_request'); // a Last-Event-ID that is not an event id
  if (schema.body) {
    out.add('payload_too_large');
    out.add('unsupported_media_type');
  }
  if (route.url.includes(':')) out.add('uri_too_long');
  if (authed) {
    // Authenticating reads the store: on PostgreSQL any keyed route can find it gone.
    out.add('store_unavailable');
    out.add('auth');
    out.add('scope');
    out.add('rate_limited');
  }
  if (kind.idempotent) {
    out.add('idempotency_in_progress');
    out.add('idempotency_mismatch');
  }
  for (const t of doc.problems ?? []) out.add(t);
  return out;
}

/** One response per status: a `Problem` whose `type` is narrowed to that status's types. */
function problemResponses(types: Set<ProblemType>): Record<string, JsonSchema> {
  const byStatus = new Map<number, ProblemType[]>();
  for (const t of types) {
    const s = problemCatalogue[t].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), t]);
  }
  const out: Record<string, JsonSchema> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const narrowed = { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: list } } };
    out[status] = {
      description: list.map((t) => `\`${t}\`: ${problemCatalogue[t].title}`).join('; '),
      content: { [PROBLEM_TYPE]: { schema: { allOf: [componentRef('Problem'), narrowed] } } },
    };
  }
  return out;
}

/** Which shared headers the operation takes and each of its answers carries. */
function headersOf(kind: Kind, doc: OperationDoc, responses: Record<string, JsonSchema>): HeaderUse {
  const request: ParameterName[] = ['X-Request-Id'];
  if (kind.idempotent) request.push('Idempotency-Key');
  if (kind.keyed) request.push('Presence-Acting-For');
  if (doc.stream?.resume) request.push('Last-Event-ID');
  const answers: Record<string, ResponseHeaderName[]> = {};
  for (const [status, r] of Object.entries(responses)) {
    const code = Number(status);
    const names: ResponseHeaderName[] = ['X-Request-Id'];
    // Set once the caller is known, so on every answer after that but a 401.
    if (kind.rateLimited && code !== 401) names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
    if ((kind.keyed || kind.surface) && code !== 401) names.push('Presence-Mode');
    if (kind.idempotent && code < 500 && code !== 401) names.push('Idempotent-Replayed');
    const types = JSON.stringify(r);
    if (code === 429 || code === 503 || (code === 409 && types.includes('idempotency_in_progress'))) names.push('Retry-After');
    answers[status] = names;
  }
  return { request, answers };
}

export function createOpenapiTransform(opts: { metricsSecurity: Record<string, string[]>[] }) {
  return (input: TransformInput) => {
    const { openapi: doc = {}, ...rest } = (input.schema ?? {}) as JsonSchema & { openapi?: OperationDoc };
    const out = jsonSchemaTransform({ ...input, schema: rest } as Parameters<typeof jsonSchemaTransform>[0]);
    const schema = out.schema as JsonSchema;
    if (!schema || schema.hide) return out;
    const kind = kindOf(input.route);
    const responses: Record<string, JsonSchema> = {};
    const given = (schema.response ?? {}) as Record<string, JsonSchema>;
    const stream = doc.stream ? { 'text/event-stream': { schema: namedRef(doc.stream.frames) } } : {};
    for (const [code, body] of Object.entries(given)) {
      const content: JsonSchema = { 'application/json': { schema: body }, ...(code === '200' ? stream : {}) };
      responses[code] = { description: doc.answers?.[Number(code)] ?? 'Success', content };
    }
    if (!given['200'] && !given['201'] && !given['202'] && doc.answers?.[204] !== undefined) {
      // An answer with no body (a removal): 204 alone (fastify-swagger's form for no content).
      responses['204'] = { description: doc.answers[204], type: 'null' };
    } else if (!given['200'] && !given['201'] && !given['202']) {
      const content = doc.stream
        ? stream
        : doc.text
          ? { [doc.text]: { schema: { type: 'string' } } }
          : { 'application/json': { schema: { type: 'object' } } };
      responses['200'] = { description: doc.answers?.[200] ?? 'Success', content };
    }
    Object.assign(responses, problemResponses(problemsOf(input.route, kind, rest, doc)));
    schema.response = responses;
    schema['x-presence-headers'] = headersOf(kind, doc, responses);
    if (kind.surface) schema.security = [{ surfaceToken: [] }];
    else if (!kind.keyed)
      // Redeeming takes no credential, or a surface token (which links the key through it).
      schema.security = input.url === '/metrics' ? opts.metricsSecurity : input.url.endsWith('/redeem') ? [{}, { surfaceToken: [] }] : [];
    return { ...out, schema };
  };
}
