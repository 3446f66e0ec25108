// The one mapping from failures to application/problem+json. Core raises PresenceError;
// Fastify raises its own coded errors; anything else is a 500 whose detail says nothing
// about internals (the log gets the error, the body never gets a stack or a secret).
import { PresenceError } from '@presence/core';
import { type Problem, type ProblemType, problemCatalogue, problemTypeForStatus } from '@presence/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { errorSummary } from '../logger';

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

const fastifyCodes: Record<string, ProblemType> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_request',
  FST_ERR_VALIDATION: 'invalid_request',
};

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
    const detail =
      coded === 'payload_too_large'
        ? 'request body is larger than 64 KiB'
        : coded === 'unsupported_media_type'
          ? `content type ${JSON.stringify(request.headers['content-type'] ?? '')} is not supported; send application/json`
          : err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
            ? 'body is not valid JSON'
            : err.message;
    return sendProblem(reply, problemOf(coded, detail));
  }
  const status = err.statusCode ?? 500;
  const statusType = status < 500 ? problemTypeForStatus(status) : undefined;
  if (statusType) return sendProblem(reply, problemOf(statusType, err.message));
  // Type and message only, whatever logger the app was built with: no stack in any log line.
  request.log.error({ err: errorSummary(err) }, 'unhandled error');
  return sendProblem(reply, problemOf('internal', 'something went wrong on our side; retrying with the same Idempotency-Key is safe'));
}
