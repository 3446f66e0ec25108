// Idempotency-Key for every write: claim before the handler runs, record the exact bytes
// sent, replay them (with Idempotent-Replayed: true) for a later duplicate.
import { type Core, fingerprintRequest } from '@presence/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function idempotencyFingerprint(request: FastifyRequest) {
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  return fingerprintRequest(request.method, request.url, body);
}

export function registerIdempotency(app: FastifyInstance, core: Core) {
  app.decorateRequest('idempotency', null);

  app.addHook('preValidation', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    const p = request.principal;
    if (!p || !WRITES.has(request.method) || key === undefined || request.routeOptions.config.ownIdempotency) return;
    const claim = await core.idempotency.claim(p.accountId, p.kind, String(key), idempotencyFingerprint(request));
    if (claim.kind === 'proceed') {
      request.idempotency = claim;
      return;
    }
    const { status, headers, body } = claim.answer;
    reply.headers(headers).header('idempotent-replayed', 'true').code(status);
    return reply.send(body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = null;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    if (body === null) {
      claim.abandon();
      return payload;
    }
    const contentType = reply.getHeader('content-type');
    await claim.complete({
      status: reply.statusCode,
      headers: contentType ? { 'content-type': String(contentType) } : {},
      body,
    });
    return payload;
  });

  // A request that ended without sending (aborted, hijacked) must not block its key forever.
  const release = async (request: FastifyRequest) => {
    request.idempotency?.abandon();
    request.idempotency = null;
  };
  app.addHook('onResponse', release);
  app.addHook('onRequestAbort', release);
}
