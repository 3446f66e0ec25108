// Authentication, rate limiting and scope checks as one onRequest hook driven by each
// route's declared `config.scope`; handlers never check keys themselves.
import { type Core, PresenceError, requireScope } from '@presence/core';
import type { FastifyInstance } from 'fastify';

const BEARER = /^Bearer ([^\s]+)$/;

export function registerAuth(app: FastifyInstance, core: Core) {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    const need = request.routeOptions.config.scope;
    if (need === undefined) return;
    const header = request.headers.authorization;
    const m = header ? BEARER.exec(header) : null;
    if (header && !m) throw new PresenceError('auth', 'malformed Authorization header: expected "Bearer <key>"');
    const principal = await core.keys.authenticate(m?.[1]);
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
    requireScope(principal, need);
  });
}
