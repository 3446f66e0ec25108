// Authentication, rate limiting and scope checks as one onRequest hook driven by each
// route's declared `config.scope`; handlers never check keys themselves.
//
// Every answer to an authenticated request carries Presence-Mode and the RateLimit-* headers,
// whatever follows: a 403 scope, a 4xx from validation or body parsing (they run after this
// hook and the error handler keeps the headers), a 5xx, or a 404 for an unknown route that
// came with a valid key. A 401 has no key to count against, so it carries none of them.
import { type Core, PresenceError, type Principal, requireScope } from '@presence/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const BEARER = /^Bearer ([^\s]+)$/;

export function registerAuth(app: FastifyInstance, core: Core) {
  app.decorateRequest('principal', null);

  /** Counts the request against its key and sets the per-key headers (429 past the limit). */
  function admit(request: FastifyRequest, reply: FastifyReply, principal: Principal) {
    request.principal = principal;
    const rate = core.rateLimiter.hit(principal.keyId);
    reply.headers({
      'presence-mode': principal.kind,
      'ratelimit-limit': String(rate.limit),
      'ratelimit-remaining': String(rate.remaining),
      'ratelimit-reset': String(rate.resetS),
    });
    if (!rate.allowed) {
      throw new PresenceError('rate_limited', `this key made ${rate.limit} requests in the current window; retry in ${rate.resetS} s`, {
        retryAfter: rate.resetS,
      });
    }
    return principal;
  }

  app.addHook('onRequest', async (request, reply) => {
    const need = request.routeOptions.config.scope;
    const header = request.headers.authorization;
    const m = header ? BEARER.exec(header) : null;
    if (need === undefined) {
      // Public routes (health, docs, redeem) ignore any key. An unknown route with a valid
      // key is a keyed request like any other: counted, and answered with the headers; with
      // a bad key it stays a plain 404 (there is no route to authorize).
      if (request.is404 && m) {
        const principal = await core.keys.authenticate(m[1]).catch(() => null);
        if (principal) admit(request, reply, principal);
      }
      return;
    }
    if (header && !m) throw new PresenceError('auth', 'malformed Authorization header: expected "Bearer <key>"');
    const principal = admit(request, reply, await core.keys.authenticate(m?.[1]));
    requireScope(principal, need);
  });
}
