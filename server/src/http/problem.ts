// The one error path: every failure the server answers becomes application/problem+json
// here. Core raises PresenceError; Fastify raises its own coded errors; anything else is a
// 500 whose detail says nothing about internals (the log gets the error's type, message and
// causes, redacted; the body never gets a stack or a secret). Bodies are built by `problem()` only — handlers,
// streams, stored idempotent answers and the raw-socket writer (client-error.ts) alike.
// Each body names the request it answers (`request_id`, also the X-Request-Id header).
import { PresenceError, redactMessage } from '@presence/core';
import { type Problem, type ProblemType, problemTypeForStatus } from '@presence/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { causeChain, errorSummary } from './error-summary';
import { REQUEST_ID_HEADER } from './request-id';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Fastify's router refuses longer path parameters (414); no id, code or memory key comes close. */
export const MAX_PARAM_LENGTH = 100;

const INTERNAL_DETAIL = 'something went wrong on our side; retrying with the same Idempotency-Key is safe';

/** A problem body of a catalogued type: its status and title are the protocol's, never chosen here. */
export const problem = (type: ProblemType, detail: string, requestId?: string): Problem =>
  withRequestId(new PresenceError(type, detail).toProblem(), requestId);

/** The body naming the request it answers (none for a body stored or built outside a request). */
export const withRequestId = (body: Problem, requestId: string | undefined): Problem =>
  requestId === undefined ? body : { ...body, request_id: requestId };

/** Fastify's own coded errors: their problem type, and a detail that never echoes the URL or body. */
const fastifyCodes: Record<string, { type: ProblemType; detail?: (request: FastifyRequest | undefined) => string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { type: 'payload_too_large', detail: () => 'request body is larger than 64 KiB' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    type: 'unsupported_media_type',
    detail: (r) => `content type ${JSON.stringify(r?.headers['content-type'] ?? '')} is not supported; send application/json`,
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { type: 'invalid_request' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { type: 'invalid_request', detail: () => 'body is empty: send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { type: 'invalid_request', detail: () => 'body is not valid JSON' },
  FST_ERR_VALIDATION: { type: 'invalid_request' },
  // Raised by the router before any route runs (Fastify's frameworkErrors).
  FST_ERR_BAD_URL: { type: 'invalid_request', detail: () => 'the URL path has a malformed %-escape' },
  FST_ERR_MAX_PARAM_LENGTH: { type: 'uri_too_long', detail: () => `a path segment is longer than ${MAX_PARAM_LENGTH} characters` },
};

/** Up to three refusals, each already naming its field in words (http/validation.ts). */
function validationDetail(err: FastifyError): string {
  const parts = (err.validation ?? []).slice(0, 3).map((v) => v.message ?? 'a field is not valid');
  return parts.length > 0 ? parts.join('; ') : err.message;
}

/**
 * Any failure as the problem a client sees. `internalDetail` says what a 500 means for the
 * caller (by default: nothing was done that a retry with the same key would repeat).
 */
export function problemFor(err: unknown, request?: FastifyRequest, internalDetail = INTERNAL_DETAIL): Problem {
  return withRequestId(bareProblemFor(err, request, internalDetail), request?.id);
}

function bareProblemFor(err: unknown, request: FastifyRequest | undefined, internalDetail: string): Problem {
  if (err instanceof PresenceError) return err.toProblem();
  const e = err as Partial<FastifyError>;
  if (hasZodFastifySchemaValidationErrors(err) || e.validation) return problem('invalid_request', validationDetail(err as FastifyError));
  const coded = e.code ? fastifyCodes[e.code] : undefined;
  if (coded)
    return problem(coded.type, coded.detail?.(request) ?? (err instanceof SyntaxError ? 'body is not valid JSON' : String(e.message)));
  const status = e.statusCode ?? 500;
  // Any other 4xx a plugin raises is still the client's fault, and still a problem.
  if (status >= 400 && status < 500) return problem(problemTypeForStatus(status) ?? 'invalid_request', String(e.message));
  return problem('internal', internalDetail);
}

export function sendProblem(reply: FastifyReply, body: Problem, retryAfter?: number) {
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  // The router's refusals (frameworkErrors) come before any hook: the header is set here too.
  reply.header(REQUEST_ID_HEADER, reply.request.id);
  // Refused before its body arrived (auth, scope, a route for another caller): the rest of the
  // body would be read as the connection's next request, and a body that never finishes would
  // get a second answer (408) on it. The connection closes after this answer instead.
  if (!reply.request.raw.complete) reply.header('connection', 'close');
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** Fastify's error handler (and its frameworkErrors and not-found handler): the one place a failure is answered. */
export function errorHandler(err: FastifyError | PresenceError, request: FastifyRequest, reply: FastifyReply) {
  const body = problemFor(err, request);
  if (body.type === 'internal' && !(err instanceof PresenceError)) {
    // Type, message and causes, redacted, whatever logger the app was built with: no stack in any log line.
    request.log.error({ err: errorSummary(err) }, 'unhandled error');
  } else if (body.status >= 500) {
    // With what caused it (a refused connection, a timeout, a 429…): the detail alone cannot
    // tell an operator which. Redacted here too, whatever logger the app was built with.
    const summary = { type: body.type, detail: redactMessage(body.detail), cause: causeChain(err) };
    request.log.warn({ err: summary }, 'answered with a 5xx problem');
  }
  return sendProblem(reply, body, err instanceof PresenceError ? err.retryAfter : undefined);
}
