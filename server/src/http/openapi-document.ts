// The OpenAPI document as a whole, once every route's operation is in (@fastify/swagger's
// transformObject). It owns: the named schemas (components.schemas from the zod registry —
// every schema given `.meta({ id })` — keeping those the operations reach, one component where
// a schema reads the same as a request and as an answer, and `<Name>` rather than
// `<Name>Input` where it is only ever a request); the request and response headers, each
// declared once here and referenced by the operations that take or carry it (which ones each
// operation gets is decided per route, in openapi.ts, as `x-presence-headers`); the servers;
// and the tags with their descriptions.
import { IDEMPOTENCY_KEY_SHAPE } from '@presence/core';
import { createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';

type Json = Record<string, unknown>;
type Operation = Json & { parameters?: Json[]; responses?: Record<string, Json>; 'x-presence-headers'?: HeaderUse };
type Document = Json & {
  paths?: Record<string, Record<string, Operation>>;
  components?: Json & { schemas?: Record<string, Json> };
};

const SCHEMAS = '#/components/schemas/';
export const componentRef = (id: string) => ({ $ref: `${SCHEMAS}${id}` });

/** A `$ref` to a zod schema's component; a schema without `.meta({ id })` has none, and says so. */
export function namedRef(schema: z.ZodType) {
  const id = z.globalRegistry.get(schema)?.id;
  if (typeof id !== 'string') throw new Error('a schema the OpenAPI document refers to by name needs .meta({ id })');
  return componentRef(id);
}

const header = (name: string, schema: Json, description: string) => ({ name, in: 'header', required: false, schema, description });
const parameters = {
  'X-Request-Id': header(
    'X-Request-Id',
    // No pattern: an unfit id is never refused, only replaced (a pattern would say it is refused).
    { type: 'string' },
    'Your id for this request, echoed as X-Request-Id and as `request_id` in problems when it is fit: 1–64 printable ASCII characters, no spaces, no `prs_`, and at most 15 letters and digits unless a UUID or at most 32 hex digits (nothing that could hold a secret, since logs carry it). Anything else is not refused: it is replaced by a fresh UUID.',
  ),
  'Idempotency-Key': header(
    'Idempotency-Key',
    { type: 'string', pattern: IDEMPOTENCY_KEY_SHAPE.source },
    'Makes the write safe to retry for 24 h: a retry with the same key (same method, path and body) gets the first answer again, byte for byte, with Idempotent-Replayed: true, and never acts twice. The same key with another request is 422 idempotency_mismatch; while the first is still running, 409 idempotency_in_progress.',
  ),
  'Presence-Acting-For': header(
    'Presence-Acting-For',
    { type: 'string', pattern: '^key_[0-9A-Za-z]{16}$' },
    'With a surface token as bearer: the linked key (key_…) the request runs as, with its scopes, its rate limit and its account. A key the surface did not link is 403; a revoked one 401. With a key as bearer it is refused 400 invalid_request (a key acts only as itself).',
  ),
  'Last-Event-ID': header(
    'Last-Event-ID',
    { type: 'string', pattern: '^[0-9]{1,15}$' },
    'Resume after this event id: everything after it is replayed in order, then the stream goes live (a `gap` frame first when older events are no longer kept).',
  ),
} as const;
export type ParameterName = keyof typeof parameters;

const integer = { type: 'integer', minimum: 0 };
const headers = {
  'X-Request-Id': {
    description: 'The id of the request this answers (yours when it was fit, else a fresh UUID)',
    required: true,
    schema: { type: 'string' },
  },
  'RateLimit-Limit': { description: 'Requests allowed per window for this key', schema: integer },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: integer },
  'RateLimit-Reset': { description: 'Seconds until the window frees a request', schema: integer },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: integer },
  'Idempotent-Replayed': {
    description: 'Present on the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  'Presence-Mode': { description: 'The kind of the key the request ran as', schema: { type: 'string', enum: ['live', 'test'] } },
} as const;
export type ResponseHeaderName = keyof typeof headers;
export type HeaderUse = { request: ParameterName[]; answers: Record<string, ResponseHeaderName[]> };

/** Every tag an operation may carry, with what it groups; a tag missing here fails the document's test. */
const TAGS: Record<string, string> = {
  meta: 'The server itself: health, readiness, this document, metrics. No key needed.',
  presence: 'The one presence of the key’s account: its name, model route and preferences.',
  keys: 'API keys: list, create, rotate with a grace window, revoke at once.',
  memory: 'What the presence remembers: pinned and fading keywords.',
  messages: 'The conversation: one turn per call (JSON or an SSE stream), and the thread the server keeps.',
  events: 'The SSE stream of what the presence does unasked, resumable with Last-Event-ID.',
  wallet: 'The wallet, its spend policy, intents and withdrawals.',
  confirm: 'Actions held above confirm_over, waiting for a yes or a no.',
  chain: 'Read-only views of the chain, each read at one block.',
  standing: 'Standing intents: what the presence watches for and does when it fires.',
  links: 'One-time codes that link a chat surface (a bot, the extension) to the account.',
  surfaces: 'A surface token’s own routes: who it is, adopting keys, and one events stream for all its linked users.',
  webhooks: 'Webhook endpoints the server calls with signed events.',
  passkeys: 'Passkeys that approve holds above passkey_over, and the steps of the pages that enroll one and approve with it.',
};

const walk = (value: unknown, visit: (node: Json) => void): void => {
  if (Array.isArray(value)) for (const v of value) walk(v, visit);
  else if (value !== null && typeof value === 'object') {
    visit(value as Json);
    for (const v of Object.values(value)) walk(v, visit);
  }
};
const refsIn = (value: unknown) => {
  const out = new Set<string>();
  walk(value, (n) => {
    if (typeof n.$ref === 'string' && n.$ref.startsWith(SCHEMAS)) out.add(n.$ref.slice(SCHEMAS.length));
  });
  return out;
};
const renameRefs = (value: unknown, rename: Map<string, string>) =>
  walk(value, (n) => {
    const to = typeof n.$ref === 'string' ? rename.get(n.$ref.slice(SCHEMAS.length)) : undefined;
    if (to !== undefined) n.$ref = `${SCHEMAS}${to}`;
  });

/**
 * fastify-type-provider-zod emits every named schema twice, as an answer (`Name`) and as a
 * request (`NameInput`). One is kept where both read the same (their references read alike
 * too), `NameInput` becomes `Name` where only the request form is used, and nothing the
 * operations do not reach stays.
 */
function tidySchemas(doc: Document) {
  const schemas = doc.components?.schemas ?? {};
  const base = (n: string) => n.slice(0, -'Input'.length);
  let same = new Set(Object.keys(schemas).filter((n) => n.endsWith('Input') && base(n) in schemas));
  for (let changed = true; changed; ) {
    changed = false;
    const rename = new Map([...same].map((n) => [n, base(n)]));
    const read = (n: string) => {
      const copy = structuredClone(schemas[n]);
      renameRefs(copy, rename);
      return JSON.stringify(copy);
    };
    const next = new Set([...same].filter((n) => read(n) === read(base(n))));
    changed = next.size !== same.size;
    same = next;
  }
  const merged = new Map([...same].map((n) => [n, base(n)]));
  renameRefs(doc.paths, merged);
  renameRefs(schemas, merged);
  for (const n of same) delete schemas[n];

  const reached = new Set<string>();
  const queue = [...refsIn(doc.paths)];
  for (let n = queue.pop(); n !== undefined; n = queue.pop()) {
    if (reached.has(n) || !(n in schemas)) continue;
    reached.add(n);
    queue.push(...refsIn(schemas[n]));
  }
  for (const n of Object.keys(schemas)) if (!reached.has(n)) delete schemas[n];
  const requestOnly = new Map(
    Object.keys(schemas)
      .filter((n) => n.endsWith('Input') && !(base(n) in schemas))
      .map((n) => [n, base(n)]),
  );
  renameRefs(doc.paths, requestOnly);
  renameRefs(schemas, requestOnly);
  const sorted = Object.keys(schemas)
    .map((n) => [requestOnly.get(n) ?? n, schemas[n] as Json] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  if (doc.components) doc.components.schemas = Object.fromEntries(sorted);
}

/** Each operation's headers, from its `x-presence-headers`, as references to the shared declarations. */
function declareHeaders(doc: Document) {
  const usedParameters = new Set<ParameterName>();
  const usedHeaders = new Set<ResponseHeaderName>();
  for (const operations of Object.values(doc.paths ?? {}))
    for (const op of Object.values(operations)) {
      const use = op['x-presence-headers'];
      delete op['x-presence-headers'];
      if (!use) continue;
      for (const name of use.request) usedParameters.add(name);
      op.parameters = [...(op.parameters ?? []), ...use.request.map((name) => ({ $ref: `#/components/parameters/${name}` }))];
      for (const [status, names] of Object.entries(use.answers)) {
        const response = op.responses?.[status];
        if (!response) continue;
        for (const name of names) usedHeaders.add(name);
        response.headers = Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
      }
    }
  const pick = <T extends Json>(all: T, used: Set<string>) => Object.fromEntries(Object.entries(all).filter(([n]) => used.has(n)));
  doc.components = { ...doc.components, parameters: pick(parameters, usedParameters), headers: pick(headers, usedHeaders) };
}

function declareTags(doc: Document) {
  const used = new Set<string>();
  for (const operations of Object.values(doc.paths ?? {}))
    for (const op of Object.values(operations)) for (const t of (op.tags as string[] | undefined) ?? []) used.add(t);
  const known = Object.keys(TAGS).filter((t) => used.has(t));
  const unknown = [...used].filter((t) => !(t in TAGS)).sort();
  doc.tags = [...known.map((name) => ({ name, description: TAGS[name] })), ...unknown.map((name) => ({ name }))];
}

export function createDocumentTransform(opts: { servers: { url: string; description: string }[] }) {
  const withSchemas = createJsonSchemaTransformObject({});
  return (input: { openapiObject: Json }): Document => {
    const doc = withSchemas(input as Parameters<typeof withSchemas>[0]) as Document;
    tidySchemas(doc);
    declareHeaders(doc);
    declareTags(doc);
    return { openapi: doc.openapi, info: doc.info, servers: opts.servers, ...doc };
  };
}
