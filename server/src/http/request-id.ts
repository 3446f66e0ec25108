// Request ids: every request gets one, from an incoming `X-Request-Id` when it is fit to
// carry (1–128 printable ASCII characters, no spaces: it is echoed in headers and written to
// logs, so nothing that could split a header or a log line), otherwise a fresh UUID. The id
// is echoed as `X-Request-Id` on every answer (SSE and problems included), is `request_id`
// in every problem body and every log line of the request.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
/** The log field name (Fastify's default is `reqId`). */
export const REQUEST_ID_LOG_LABEL = 'request_id';

const FIT = /^[\x21-\x7e]{1,128}$/;

/** Fastify's genReqId: the caller's id when it is fit, a new one otherwise. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && FIT.test(given) ? given : randomUUID();
}

/** Echoes the id first thing, so every later answer (a refusal in any hook, a 404, a stream) carries it. */
export function registerRequestId(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
