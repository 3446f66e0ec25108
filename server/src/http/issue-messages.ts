// What a refused field is told, in words a person reads: "`limit` must be a whole number from
// 1 to 100", "`url` is required", "unknown field `foo`", "unknown query parameter `limt`".
// One zod error map (zod 4's per-parse `error`, see validation.ts) for every request part of
// every route: a schema's own message (a regex's "an address is 0x followed by 40 hex
// digits", a refinement's) outranks it and is kept, prefixed with the field it is about.
// Words come from the schema (its bounds, options, format, an `examples` in its meta), never
// from the value sent: a detail does not echo what a client sent (a secret pasted into the
// wrong field or query stays out of answers that are stored for replay).
import { z } from 'zod';
import type * as core from 'zod/v4/core';

export type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

const ITEM: Record<RequestPart, string> = { body: 'field', querystring: 'query parameter', params: 'path parameter', headers: 'header' };

/**
 * A name a client may be told back: it looks like a parameter or field name, and has fewer
 * letters and digits than any secret we make (a link code has 20, typed in lowercase too; a
 * key's secret 40). Anything else (a code or key sent as `?<code>`, uppercase, or longer) is
 * not repeated.
 */
const NAME = /^[a-z][A-Za-z0-9_]{0,31}$/;
const nameable = (k: string) => NAME.test(k) && k.replace(/_/g, '').length < 20;

/** A field's path as a person writes it: `route.model`, `scopes[0]`, the part itself when empty. */
export function fieldLabel(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

const quoted = (path: readonly PropertyKey[], part: RequestPart) =>
  path.length === 0 ? (part === 'body' ? 'the body' : `the ${ITEM[part]}s`) : `\`${fieldLabel(path)}\``;

const listOf = (xs: readonly unknown[]) => xs.map((x) => `\`${String(x)}\``).join(', ');

/** "from 1 to 100", "at least 0", "at most 500 characters", "" — a range in words. */
function range(min: number | null | undefined, max: number | null | undefined, unit = ''): string {
  const u = unit ? ` ${unit}` : '';
  const lo = min !== null && min !== undefined && Number.isFinite(min) && !(unit && min === 0) ? min : undefined;
  const hi = max !== null && max !== undefined && Number.isFinite(max) ? max : undefined;
  if (lo !== undefined && hi !== undefined) return lo === hi ? `exactly ${lo}${u}` : `from ${lo} to ${hi}${u}`;
  if (lo !== undefined) return `at least ${lo}${u}`;
  if (hi !== undefined) return `at most ${hi}${u}`;
  return '';
}

/** `, at most 500 characters`: a range after what it bounds ("from … to …" reads without the comma). */
const after = (r: string) => (r === '' ? '' : r.startsWith('from') ? ` ${r}` : `, ${r}`);

/** An example the schema (or what it was derived from) gives in its meta, said as `like "0.5 ETH"`. */
function example(schema: unknown): string {
  const meta = schema instanceof z.ZodType ? z.globalRegistry.get(schema) : undefined;
  const first = Array.isArray(meta?.examples) ? meta.examples[0] : undefined;
  return first === undefined ? '' : ` like ${JSON.stringify(first)}`;
}

const BY_TYPE: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

/** A bound worth saying: not absent, infinite, or the safe-integer limit `int()` implies. */
const bound = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) || Math.abs(n) === Number.MAX_SAFE_INTEGER ? null : n;

/** What a value must be, from the schema that refused it: "a whole number from 1 to 100". */
function expected(schema: unknown, fallback: string | undefined): string | undefined {
  if (schema instanceof z.ZodNumber) {
    return `${schema.isInt ? 'a whole number' : 'a number'}${after(range(bound(schema.minValue), bound(schema.maxValue)))}`;
  }
  if (schema instanceof z.ZodString) {
    // An example says more than a length: "a string like "0.5 ETH"".
    const like = example(schema);
    return `a string${like || after(range(schema.minLength, schema.maxLength, 'characters'))}`;
  }
  if (schema instanceof z.ZodBoolean) return BY_TYPE.boolean;
  if (schema instanceof z.ZodArray) return BY_TYPE.array;
  if (schema instanceof z.ZodObject || schema instanceof z.ZodRecord) return BY_TYPE.object;
  return fallback === undefined ? undefined : BY_TYPE[fallback];
}

const FORMATS: Record<string, string> = {
  url: 'a URL',
  email: 'an email address',
  uuid: 'a UUID',
  datetime: 'an RFC 3339 date and time',
  date: 'a date (YYYY-MM-DD)',
  regex: 'in the documented format',
};

/** The message for one raw issue; undefined leaves zod's own (never reached for the codes requests raise). */
function describe(iss: core.$ZodRawIssue, part: RequestPart): string | undefined {
  const path = iss.path ?? [];
  const field = quoted(path, part);
  const schema = (iss as { schema?: unknown }).schema ?? iss.inst;
  switch (iss.code) {
    case 'unrecognized_keys': {
      const keys = iss.keys.filter(nameable);
      const item = `unknown ${ITEM[part]}${iss.keys.length > 1 ? 's' : ''}`;
      const where = path.length > 0 ? ` in \`${fieldLabel(path)}\`` : '';
      if (keys.length === 0) return `${item}${where} (not repeated here: not a name this API uses)`;
      return `${item} ${listOf(keys)}${where}${keys.length < iss.keys.length ? ' and others' : ''}`;
    }
    case 'invalid_type': {
      if (iss.input === undefined) return `${field} is required`;
      const what = expected(schema, iss.expected);
      return what ? `${field} must be ${what}` : `${field} has the wrong type`;
    }
    case 'too_small':
    case 'too_big': {
      if (iss.origin === 'array' || iss.origin === 'set') {
        const n = Number(iss.code === 'too_small' ? iss.minimum : iss.maximum);
        return `${field} must have ${iss.code === 'too_small' ? 'at least' : 'at most'} ${n} item${n === 1 ? '' : 's'}`;
      }
      if (iss.origin === 'object' || iss.origin === 'record') return undefined;
      const what = expected(schema, iss.origin);
      if (what) return `${field} must be ${what}`;
      return `${field} must be ${iss.code === 'too_small' ? 'at least' : 'at most'} ${String(iss.code === 'too_small' ? iss.minimum : iss.maximum)}`;
    }
    case 'not_multiple_of':
      return `${field} must be a multiple of ${String(iss.divisor)}`;
    case 'invalid_value':
      return iss.values.length === 1 ? `${field} must be ${listOf(iss.values)}` : `${field} must be one of ${listOf(iss.values)}`;
    case 'invalid_format':
      return `${field} must be ${FORMATS[iss.format] ?? `a valid ${iss.format}`}${iss.format === 'regex' ? example(schema) : ''}`;
    case 'invalid_union': {
      // A discriminated union names its tag and the values it knows (the issue is at the tag).
      const options = (iss as { options?: unknown[] }).options;
      if (!options) return `${field} does not match any of its accepted forms`;
      return iss.input === undefined ? `${field} is required` : `${field} must be one of ${listOf(options)}`;
    }
    case 'invalid_key':
      return `${field} has a key that is not allowed`;
    case 'invalid_element':
      return `${field} has an element that is not allowed`;
    default:
      return `${field} is not valid`;
  }
}

/**
 * A zod error map for one request part, and which of the messages it made (so a schema's own
 * message, which outranks it, can still be told which field it is about).
 */
export function issueMessages(part: RequestPart) {
  const ours = new Set<string>();
  const map: core.$ZodErrorMap = (iss) => {
    const message = describe(iss, part);
    if (message !== undefined) ours.add(message);
    return message;
  };
  /** The final text of a finished issue: ours as it is, a schema's own with its field first. */
  const final = (issue: core.$ZodIssue) =>
    ours.has(issue.message) || issue.path.length === 0 ? issue.message : `\`${fieldLabel(issue.path)}\`: ${issue.message}`;
  return { map, final };
}
