// Idempotency-Key for every write: claim before the handler runs, record the exact bytes
// sent, replay them (with Idempotent-Replayed: true) for a later duplicate.
import { type Core, checkIdempotencyKey, fingerprintRequest, type StoredAnswer } from '@presence/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * A safety net only: after the client hung up, the key stays claimed until the handler has
 * sent its answer (which is then stored). Should a handler never send at all, its key is
 * freed this long after the abort instead of staying blocked until a restart.
 */
const RELEASE_AFTER_ABORT_MS = 10 * 60_000;

/** The body as parsed (before validation): its keys' order does not matter (core's fingerprint.ts). */
export function idempotencyFingerprint(request: FastifyRequest) {
  return fingerprintRequest(request.method, request.url, request.body);
}

/** Sends a stored answer again, as the exact bytes first sent, marked as a replay. */
export function sendStoredAnswer(reply: FastifyReply, answer: StoredAnswer) {
  return reply
    .headers(answer.headers)
    .header('idempotent-replayed', 'true')
    .code(answer.status)
    .serializer((x: unknown) => x as string)
    .send(answer.body as never);
}

type Hook = (...args: never[]) => unknown;
const asList = (h: Hook | Hook[] | undefined): Hook[] => (h === undefined ? [] : Array.isArray(h) ? h : [h]);

/** Must run before routes are added: hooks attach only to write routes, so reads pay nothing. */
export function registerIdempotency(app: FastifyInstance, core: Core) {
  app.decorateRequest('idempotency', null);

  const claim = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers['idempotency-key'];
    const p = request.principal;
    if (!p || key === undefined) return;
    const c = await core.idempotency.claim(p, String(key), idempotencyFingerprint(request));
    if (c.kind === 'proceed') {
      request.idempotency = c;
      return;
    }
    return sendStoredAnswer(reply, c.answer);
  };

  const record = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const c = request.idempotency;
    if (!c) return payload;
    request.idempotency = null;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    if (body === null) {
      c.abandon();
      return payload;
    }
    const contentType = reply.getHeader('content-type');
    try {
      await c.complete({ status: reply.statusCode, headers: contentType ? { 'content-type': String(contentType) } : {}, body });
    } catch (err) {
      // The work is done (or refused) and this is its answer; only keeping it failed (the
      // database went away). Thrown from here, Fastify would replace it with a bare 503 of its
      // own, no problem+json, and the client's retry would run the work again. Sent as it is,
      // the client is done; only a duplicate sent later runs again (the key is free).
      request.log.warn({ err }, 'answered without keeping the answer for its Idempotency-Key');
    }
    return payload;
  };

  // Normally a no-op (the answer was recorded in onSend); frees the key of a request that
  // ended without a recordable answer.
  const release = async (request: FastifyRequest) => {
    request.idempotency?.abandon();
    request.idempotency = null;
  };

  // A client hanging up does not stop the handler: Fastify still runs it and its onSend
  // hooks, so the answer is recorded as usual and a retry with the same key waits for it
  // and replays it. Freeing the key here instead would let that retry run the action again.
  const onAbort = async (request: FastifyRequest) => {
    const c = request.idempotency;
    if (!c) return;
    setTimeout(() => {
      // Async only to serve as an onResponse hook; abandon() catches its own store call.
      if (request.idempotency === c) void release(request);
    }, RELEASE_AFTER_ABORT_MS).unref();
  };

  // The key's syntax is checked as the request arrives, before its body is read: a bad key
  // is refused at once, whatever (and however slowly) the body would have been.
  const checkKey = async (request: FastifyRequest) => {
    const key = request.headers['idempotency-key'];
    if (key !== undefined) checkIdempotencyKey(String(key));
  };

  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.some((m) => WRITES.has(m)) || route.config?.scope === undefined) return;
    route.onRequest = [...asList(route.onRequest as Hook | Hook[] | undefined), checkKey] as typeof route.onRequest;
    if (route.config?.ownIdempotency) return;
    route.preValidation = [...asList(route.preValidation as Hook | Hook[] | undefined), claim] as typeof route.preValidation;
    route.onSend = [...asList(route.onSend as Hook | Hook[] | undefined), record] as typeof route.onSend;
    route.onResponse = [...asList(route.onResponse as Hook | Hook[] | undefined), release] as typeof route.onResponse;
    route.onRequestAbort = [...asList(route.onRequestAbort as Hook | Hook[] | undefined), onAbort] as typeof route.onRequestAbort;
  });
}
