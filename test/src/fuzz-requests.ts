// Generated requests for the API fuzz test: one arbitrary per operation of the OpenAPI
// document, mixing values its JSON Schemas accept (patterns through fc.stringMatching, enums,
// bounds, phrases the planners understand) with values they refuse (wrong types, bad
// %-escapes, overlong segments, invalid JSON, odd headers). Path parameters may also be ids
// seen in earlier answers (`pool`), so a run reaches real keys, holds, codes and standing
// intents, not only 404s.
import fc from 'fast-check';

type Schema = {
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
};
type Parameter = { in: 'path' | 'query'; name: string; schema: Schema };
type Operation = { parameters?: Parameter[]; requestBody?: { content: { 'application/json': { schema: Schema } } } };
export type OpenApi = { paths: Record<string, Record<string, Operation & { responses?: Record<string, unknown> }>> };

export type Who = 'admin' | 'test' | 'narrow' | 'actor' | 'none' | 'garbage';

export type FuzzRequest = {
  method: string;
  /** The operation's path template, to look up its documented answers. */
  template: string;
  path: string;
  query: string;
  who: Who;
  garbageAuth: string;
  headers: Record<string, string>;
  body: string | undefined;
};

/** Ids seen in earlier answers, by kind; picked by index so a seed replays the same choices. */
export type Pool = Map<string, string[]>;
const POOLED: [string, RegExp][] = [
  ['key_', /key_[0-9A-Za-z]{16}/g],
  ['cf_', /cf_[0-9A-Za-z]{16}/g],
  ['st_', /st_[0-9A-Za-z]{12}/g],
  ['memory', /\b(?:token|pair|addr|topic|pref):[A-Za-z0-9._-]{1,64}/g],
];
export function harvest(pool: Pool, text: string) {
  const add = (kind: string, value: string) => {
    const list = pool.get(kind) ?? [];
    if (!list.includes(value)) list.push(value);
    if (list.length > 50) list.shift();
    pool.set(kind, list);
  };
  for (const [kind, re] of POOLED) for (const m of text.matchAll(re)) add(kind, m[0]);
  for (const m of text.matchAll(/"code":"([A-Z2-9]{20})"/g)) add('code', m[1] as string);
}
const poolKind = (schema: Schema, name: string) =>
  name === 'code'
    ? 'code'
    : schema.pattern?.startsWith('^(token|')
      ? 'memory'
      : (/^\^(key_|cf_|st_)/.exec(schema.pattern ?? '')?.[1] ?? null);

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const anyString = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }), printable);

/** Sentences the local planner and the intent parser act on, so turns reach the chain. */
const PHRASES = [
  'hello',
  'how deep is WETH-USDC',
  'what is WETH worth',
  'what do I hold',
  'is SCAM safe',
  'swap 5 USDC for WETH',
  'swap 20 USDC for WETH',
  'buy $2 of WETH with DAI',
  'sell 0.001 WETH for DAI',
  'wrap 0.01 ETH',
  'unwrap 0.01 WETH',
  'send 1 USDC to 0x000000000000000000000000000000000000dEaD',
  'remember that I prefer DAI',
  'forget pair:WETH-USDC',
  'what do you remember',
  'tell me when WETH is below 2500 USD',
  'every day at 09:00 tell me my balance',
  'if WETH drops below 2000 buy $5 of WETH',
  'swap 999999999 USDC for WETH',
  'swap 0 USDC for SCAM',
  // Past every bound (10^12 of a unit; uint256 in base units): refused, never a 500.
  `swap ${2n ** 256n - 1n} USDC for WETH`,
  `buy $1${'0'.repeat(80)} of WETH`,
  'wrap 1000000000001',
];
const AMOUNTS = [
  '0 USD',
  '1 USD',
  '10 USD',
  '50 USD',
  '1000000 USD',
  '0.5 ETH',
  '5 USDC',
  '1 SCAM',
  '3 NOPE',
  // At and past the bound of every amount (10^12 of its unit), and past uint256.
  '1000000000000 USD',
  '1000000000001 USD',
  `1${'0'.repeat(80)} USD`,
  `${2n ** 256n - 1n} WETH`,
];
const ADDRESSES = ['0x000000000000000000000000000000000000dEaD', `0x${'0'.repeat(40)}`];
const TOKENS = ['WETH', 'USDC', 'DAI', 'SCAM', 'ETH', 'NOPE', 'WETH-USDC', 'WETH-DAI', 'WETH-SCAM', 'USDC-DAI'];

/** Values the schema accepts (mostly), with the domain's own words where a schema says little. */
function valid(schema: Schema, name = ''): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => valid(s, name)));
  switch (schema.type) {
    case 'string': {
      if (['text', 'do'].includes(name))
        return fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...PHRASES) },
          { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 60 }) },
        );
      if (/cap|over|amount/.test(name)) return fc.constantFrom(...AMOUNTS);
      if (['pair', 'token'].includes(name)) return fc.constantFrom(...TOKENS, ...ADDRESSES);
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
    }
    case 'integer':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? (schema.exclusiveMinimum ?? -1) + 1, max: Math.min(schema.maximum ?? 1e6, 1e6) }),
        fc.constantFrom(schema.minimum ?? 0, schema.maximum ?? 0),
      );
    case 'number':
      return fc.double({ noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valid(schema.items ?? {}, name), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const props = Object.entries(schema.properties ?? {});
      if (props.length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(fc.string({ maxLength: 20 }), fc.boolean()));
      const shape = Object.fromEntries(props.map(([k, s]) => [k, value(s, k)]));
      return fc.record(shape, { requiredKeys: (schema.required ?? []).filter((k) => k in shape) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Mostly what the schema accepts; now and then anything at all. */
const value = (schema: Schema, name = ''): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 20, arbitrary: valid(schema, name) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });

/** JSON nested `depth` deep, arrays and objects mixed (the server's bound is 32). */
const deepJson = fc
  .tuple(fc.integer({ min: 20, max: 6000 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }))
  .map(([depth, kinds]) => {
    let open = '';
    let close = '';
    for (let i = 0; i < depth; i++) {
      const object = kinds[i % kinds.length];
      open += object ? '{"a":' : '[';
      close = (object ? '}' : ']') + close;
    }
    return `${open}1${close}`;
  });

/** JSON one level deep and very wide: thousands of members or elements (up to about 60 KB). */
const wideJson = fc.oneof(
  fc.integer({ min: 100, max: 7000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  fc.integer({ min: 100, max: 25_000 }).map((n) => `[${Array(n).fill('0').join(',')}]`),
  fc.integer({ min: 100, max: 5000 }).map((n) => `{"text":"x",${Array.from({ length: n }, (_, i) => `"x${i}":[]`).join(',')}}`),
);

/** A body: JSON of the schema's shape, any JSON, none, not JSON, deep or wide JSON, or over the 64 KiB limit. */
function body(schema: Schema | undefined): fc.Arbitrary<string | undefined> {
  const shaped = schema ? value(schema).map((v) => JSON.stringify(v)) : fc.constant(undefined);
  return fc.oneof(
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: wideJson },
    { weight: 40, arbitrary: shaped },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.constantFrom(undefined, '', '{', '{"a":', 'null', '[]', '"x"', '{"__proto__":{"x":1}}') },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: fc.constant(JSON.stringify({ text: 'x'.repeat(70_000) })) },
  );
}

/** A path segment: a known id, a valid-looking one, junk (URL-encoded), a bad %-escape, or too long. */
function segment(p: Parameter): fc.Arbitrary<(pool: Pool) => string> {
  const kind = poolKind(p.schema, p.name);
  const fixed = (a: fc.Arbitrary<string>) => a.map((s) => () => s);
  const options: fc.WeightedArbitrary<(pool: Pool) => string>[] = [
    { weight: 4, arbitrary: fixed(valid(p.schema, p.name).map((v) => encodeURIComponent(String(v)))) },
    { weight: 1, arbitrary: fixed(anyString.map((s) => encodeURIComponent(s) || 'x')) },
    { weight: 1, arbitrary: fixed(fc.constantFrom('%', '%ff', '%%%%', '%E0%A4%A', '..', '%2e%2e', '%00', '%2F', 'self', '%20')) },
    { weight: 1, arbitrary: fixed(fc.integer({ min: 90, max: 5000 }).map((n) => 'x'.repeat(n))) },
  ];
  if (kind) {
    options.push({
      weight: 6,
      arbitrary: fc.nat().map((i) => (pool: Pool) => {
        const list = pool.get(kind) ?? [];
        return list.length > 0 ? encodeURIComponent(list[i % list.length] as string) : 'none';
      }),
    });
  }
  return fc.oneof(...options);
}

function query(params: Parameter[]): fc.Arbitrary<string> {
  const known = params.map((p) =>
    fc.option(
      fc.oneof(
        { weight: 4, arbitrary: valid(p.schema, p.name).map((v) => `${p.name}=${encodeURIComponent(String(v))}`) },
        { weight: 1, arbitrary: anyString.map((s) => `${p.name}=${encodeURIComponent(s)}`) },
        { weight: 1, arbitrary: fc.constantFrom(`${p.name}=%zz`, `${p.name}=`, `${p.name}=-1`, `${p.name}=1e309`, p.name) },
      ),
      { nil: undefined },
    ),
  );
  const extra = fc.option(
    fc.tuple(printable, printable).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
    { nil: undefined, freq: 6 },
  );
  return fc.tuple(fc.tuple(...known), extra).map(([ks, e]) => {
    const parts = [...ks, e].filter((x): x is string => x !== undefined);
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  });
}

/** Present now and then (1 in `freq`), so most requests are otherwise well-formed. */
const sometimes = <T>(a: fc.Arbitrary<T>, freq: number) => fc.option(a, { nil: undefined, freq });

const headers: fc.Arbitrary<Record<string, string>> = fc
  .record({
    'content-type': fc.oneof(
      { weight: 30, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', '*/*'),
      },
      { weight: 1, arbitrary: printable },
    ),
    // Mostly fresh keys (a write then runs); a few fixed ones make replays and mismatches.
    'idempotency-key': sometimes(
      fc.oneof(
        { weight: 8, arbitrary: fc.uuid() },
        { weight: 1, arbitrary: printable },
        { weight: 1, arbitrary: fc.constantFrom('', ' ', 'k'.repeat(300), 'same-key-1', 'same-key-2') },
      ),
      3,
    ),
    'last-event-id': sometimes(fc.oneof(fc.constantFrom('0', '1', '-1', '99999999999999999999', 'abc', ''), fc.nat().map(String)), 4),
    accept: fc.constantFrom('application/json', 'text/event-stream', '*/*'),
  })
  .map((h) => Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined)));

const who: fc.Arbitrary<Who> = fc.oneof(
  { weight: 16, arbitrary: fc.constantFrom<Who>('admin', 'admin', 'admin', 'actor', 'narrow', 'test') },
  { weight: 1, arbitrary: fc.constantFrom<Who>('none', 'garbage') },
);

/** One arbitrary request for an operation: its method, path, query, headers and body. */
function operation(template: string, method: string, op: Operation): fc.Arbitrary<(pool: Pool) => FuzzRequest> {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const schema = op.requestBody?.content['application/json']?.schema;
  const withBody = ['POST', 'PUT', 'PATCH'].includes(method);
  return fc
    .record({
      segments: fc.tuple(...pathParams.map(segment)),
      query: query(params.filter((p) => p.in === 'query')),
      who,
      garbageAuth: fc.oneof(
        printable,
        printable.map((s) => `Bearer ${s}`),
        fc.constant('Bearer prs_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
      ),
      headers,
      body: withBody ? body(schema) : fc.option(body(schema), { freq: 10, nil: undefined }),
    })
    .map((r) => (pool: Pool) => {
      let path = template;
      pathParams.forEach((p, i) => {
        path = path.replace(`{${p.name}}`, (r.segments[i] as (pool: Pool) => string)(pool));
      });
      return { method, template, path, query: r.query, who: r.who, garbageAuth: r.garbageAuth, headers: r.headers, body: r.body };
    });
}

/**
 * The document with every local `$ref` (its named schemas, its shared parameters) replaced by
 * what it points at, so the generators read each operation's shapes where they are used. The
 * document has no cyclic schema; a cycle would be an error here, not a hang.
 */
export function dereference<T>(doc: T): T {
  const at = (ref: string) =>
    ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], doc);
  const inline = (v: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('a cyclic $ref in the OpenAPI document');
    if (Array.isArray(v)) return v.map((x) => inline(x, depth));
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    if (typeof o.$ref === 'string') return inline(at(o.$ref), depth + 1);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, inline(x, depth)]));
  };
  return inline(doc, 0) as T;
}

/** URLs that nearly reach a route, with a link code (or a key-shaped secret) where a log could keep it. */
const NEAR_MISSES = [
  '/v1/links%252F{c}',
  '/v1/link%2573/{c}',
  '/v1/links?code={c}',
  '/v1/link/{c}',
  '/v1/redeem/{c}',
  '/v1/links{c}',
  '/v1/links;{c}',
  '/v1/health?{c}',
  '/{c}',
  '/v1/keys/{c}',
  '/v1/confirm/{c}',
  '/metrics?{c}',
  '/v1/keys?key={c}',
  '/v1/links/{c}%2Fredeem',
  '/V1/LINKS/{c}/REDEEM',
];
const nearMiss: fc.Arbitrary<(pool: Pool) => FuzzRequest> = fc
  .record({
    form: fc.constantFrom(...NEAR_MISSES),
    method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
    pick: fc.nat(),
    secretish: fc.stringMatching(/^prs_live_[0-9A-Za-z]{40}$/),
    who,
    headers,
  })
  .map((r) => (pool: Pool) => {
    const codes = pool.get('code') ?? [];
    const c = codes.length > 0 && r.pick % 2 === 0 ? (codes[r.pick % codes.length] as string) : r.secretish;
    const [path, q] = r.form.replace('{c}', c).split('?');
    const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : '{}';
    return {
      method: r.method,
      template: '',
      path: path as string,
      query: q === undefined ? '' : `?${q}`,
      who: r.who,
      garbageAuth: '',
      headers: r.headers,
      body,
    };
  });

/** Every operation of the document, equally likely, and now and then a near miss. */
export function requestsFor(doc: OpenApi): fc.Arbitrary<(pool: Pool) => FuzzRequest> {
  const ops = Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => operation(template, method.toUpperCase(), op)),
  );
  return fc.oneof(...ops, nearMiss);
}

/** Methods no route serves (and CONNECT, which Node hands to nobody); some Node's parser does not know at all. */
export const unknownMethods = fc.oneof(
  fc.constantFrom('CONNECT', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE', 'REPORT', 'BREW', 'QUERY', 'M-SEARCH'),
  fc.stringMatching(/^[A-Z]{3,12}$/),
);

/** A write that stops partway: the request line and headers of `path`, then some of a body that never finishes. */
export const slowBodies = (paths: readonly string[]) =>
  fc
    .record({
      path: fc.constantFrom(...paths),
      method: fc.constantFrom('POST', 'PUT', 'PATCH'),
      declared: fc.integer({ min: 2, max: 60_000 }),
      keyed: fc.boolean(),
      chunked: fc.boolean(),
    })
    .chain((r) =>
      fc.string({ maxLength: Math.min(200, r.declared - 1) }).map((sent) => ({ ...r, sent: `{${sent}`.slice(0, r.declared - 1) })),
    );
