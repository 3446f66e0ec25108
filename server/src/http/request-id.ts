// Request ids: every request gets one, from an incoming `X-Request-Id` when it is fit to
// carry, otherwise a fresh UUID. Fit: 1–64 printable ASCII characters, no spaces (it is echoed
// in headers and written to logs, so nothing that could split a header or a log line), and
// nothing that could be a secret, since every log line carries it: no `prs_` (a key or surface
// token), and fewer than 16 letters and digits in all (a link code is 20, a key's secret 40, the
// master key 64) unless it is a UUID or at most 32 hex digits (what balancers such as nginx make). The id
// is echoed as `X-Request-Id` on every answer (SSE and problems included), is `request_id`
// in every problem body and every log line of the request.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
/** The log field name (Fastify's default is `reqId`). */
export const REQUEST_ID_LOG_LABEL = 'request_id';

const PRINTABLE = /^[\x21-\x7e]{1,64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]{1,32}$/i;
/** Fewer letters and digits than any secret we make, so not one of them, nor most of one. */
const MAX_ALPHANUMERICS = 15;

/** Whether an incoming id may be kept: printable, short, and not able to hold a secret. */
export function isFitRequestId(id: string): boolean {
  if (!PRINTABLE.test(id) || /prs_/i.test(id)) return false;
  return UUID.test(id) || HEX.test(id) || id.replace(/[^0-9a-z]/gi, '').length <= MAX_ALPHANUMERICS;
}

/** Fastify's genReqId: the caller's id when it is fit, a new one otherwise. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && isFitRequestId(given) ? given : randomUUID();
}

/** Echoes the id first thing, so every later answer (a refusal in any hook, a 404, a stream) carries it. */
export function registerRequestId(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
