// JSON bodies: Fastify's own parser (prototype poisoning refused), behind a bound on nesting.
// A body of 10 KB of `[` parses, but every later walk over it (validation, the idempotency
// fingerprint, logging) recurses once per level and overflows the stack: a 500 from any body.
// The bound is checked on the text before it is parsed, so no deep value ever exists. The
// bytes must be UTF-8 (JSON's one encoding): decoded leniently, a malformed byte became U+FFFD
// and the request went on with text the client never sent.
import { isUtf8 } from 'node:buffer';
import { PresenceError } from '@presence/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** No request schema comes near it (the deepest, a spend policy, is 4 levels). */
export const MAX_JSON_DEPTH = 32;

/** Whether JSON text opens more than `max` arrays or objects inside each other (brackets in strings are text). */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Fastify's default JSON parser is the callback form: it calls `done` and returns nothing. Its
 * declared type is the union of both forms, which would read as a promise left floating.
 */
type CallbackParser = (request: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => void;

export function registerJsonBody(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error') as CallbackParser;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    if (!isUtf8(raw as Buffer)) return done(new PresenceError('invalid_request', 'body is not valid UTF-8'), undefined);
    const body = (raw as Buffer).toString('utf8');
    if (nestedDeeperThan(body, MAX_JSON_DEPTH)) {
      return done(new PresenceError('invalid_request', `body is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    parse(request, body, done);
  });
}
