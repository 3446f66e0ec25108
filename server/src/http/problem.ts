// The one mapping from failures to application/problem+json. Core raises PresenceError;
// Fastify raises its own coded errors; anything else is a 500 whose detail says nothing
// about internals (the log gets the error, the body never gets a stack or a secret).
import { PresenceError } from '@presence/core';
import { type Problem, type ProblemType, problemCatalogue, problemTypeForStatus } from '@presence/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { errorSummary } from './error-summary';

export function sendProblem(reply: FastifyReply, problem: Problem, retryAfter?: number) {
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply.code(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}

export const problemOf = (type: ProblemType, detail: string): Problem => ({
  type,
  title: problemCatalogue[type].title,
  status: problemCatalogue[type].status,
  detail,
});

/** Fastify's own coded errors: their problem type, and a detail that never echoes the URL or body. */
const fastifyCodes: Record<string, { type: ProblemType; detail?: (request: FastifyRequest) => string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { type: 'payload_too_large', detail: () => 'request body is larger than 64 KiB' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    type: 'unsupported_media_type',
    detail: (r) => `content type ${JSON.stringify(r.headers['content-type'] ?? '')} is not supported; send application/json`,
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { type: 'invalid_request' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { type: 'invalid_request' },
  FST_ERR_CTP_INVALID_JSON_BODY: { type: 'invalid_request', detail: () => 'body is not valid JSON' },
  FST_ERR_VALIDATION: { type: 'invalid_request' },
  // Raised by the router before any route runs (Fastify's frameworkErrors).
  FST_ERR_BAD_URL: { type: 'invalid_request', detail: () => 'the URL path has a malformed %-escape' },
  FST_ERR_MAX_PARAM_LENGTH: { type: 'uri_too_long', detail: () => `a path segment is longer than ${MAX_PARAM_LENGTH} characters` },
};

/** Fastify's router refuses longer path parameters (414); no id, code or memory key comes close. */
export const MAX_PARAM_LENGTH = 100;

function validationDetail(err: FastifyError): string {
  const where = err.validationContext ?? 'request';
  const parts = (err.validation ?? []).slice(0, 3).map((v) => {
    const at = v.instancePath ? v.instancePath.replace(/^\//, '').replaceAll('/', '.') : '';
    return `${where}${at ? `.${at}` : ''}: ${v.message ?? 'is invalid'}`;
  });
  return parts.length > 0 ? parts.join('; ') : err.message;
}

export function errorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err instanceof PresenceError) {
    if (err.status >= 500) request.log.warn({ err: { type: err.type, detail: err.detail } }, 'answered with a 5xx problem');
    return sendProblem(reply, err.toProblem(), err.retryAfter);
  }
  if (hasZodFastifySchemaValidationErrors(err) || err.validation) {
    return sendProblem(reply, problemOf('invalid_request', validationDetail(err)));
  }
  const coded = err.code ? fastifyCodes[err.code] : undefined;
  if (coded) {
    const detail = coded.detail?.(request) ?? (err instanceof SyntaxError ? 'body is not valid JSON' : err.message);
    return sendProblem(reply, problemOf(coded.type, detail));
  }
  const status = err.statusCode ?? 500;
  // Any other 4xx a plugin raises is still the client's fault, and still a problem.
  if (status >= 400 && status < 500) return sendProblem(reply, problemOf(problemTypeForStatus(status) ?? 'invalid_request', err.message));
  // Type and message only, whatever logger the app was built with: no stack in any log line.
  request.log.error({ err: errorSummary(err) }, 'unhandled error');
  return sendProblem(reply, problemOf('internal', 'something went wrong on our side; retrying with the same Idempotency-Key is safe'));
}
