// Authentication, rate limiting and scope checks as one onRequest hook driven by each
// route's declared `config.scope`; handlers never check keys themselves.
//
// Every answer to an authenticated request carries Presence-Mode and the RateLimit-* headers,
// whatever follows: a 403 scope, a 4xx from validation or body parsing (they run after this
// hook and the error handler keeps the headers), a 5xx, or a 404 for an unknown route that
// came with a valid key. A 401 has no key to count against, so it carries none of them.
//
// Failed authentications are limited per client address (`authFailures`): once an address
// has used its budget, its requests that present a key are answered 429 without the key
// being looked at, until the window frees a slot — so nobody can try keys at line rate.
// Requests without any Authorization header are not guesses and are never counted.
import { type Core, PresenceError, type Principal, type RateLimiterPort, requireScope } from '@presence/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientAddress } from './client-address';

const BEARER = /^Bearer ([^\s]+)$/;

export function registerAuth(app: FastifyInstance, core: Core, authFailures: RateLimiterPort) {
  app.decorateRequest('principal', null);

  /** Counts the request against its key and sets the per-key headers (429 past the limit). */
  async function admit(request: FastifyRequest, reply: FastifyReply, principal: Principal) {
    request.principal = principal;
    const rate = await core.rateLimiter.hit(principal.keyId);
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

  /** The key's principal; a failure counts against the address that presented a key (its 401 is thrown). */
  async function authenticate(address: string | null, secret: string | undefined, malformed: boolean): Promise<Principal> {
    try {
      if (malformed) throw new PresenceError('auth', 'malformed Authorization header: expected "Bearer <key>"');
      return await core.keys.authenticate(secret);
    } catch (e) {
      if (address !== null && e instanceof PresenceError && e.type === 'auth') await authFailures.hit(address);
      throw e;
    }
  }

  app.addHook('onRequest', async (request, reply) => {
    const need = request.routeOptions.config.scope;
    const header = request.headers.authorization;
    const m = header ? BEARER.exec(header) : null;
    const address = header === undefined ? null : clientAddress(request.ip);
    const budget = address === null ? null : await authFailures.peek(address);
    if (need === undefined) {
      // Public routes (health, docs, redeem) ignore any key. An unknown route with a valid
      // key is a keyed request like any other: counted, and answered with the headers; with
      // a bad key it stays a plain 404 (there is no route to authorize) — but the failure
      // counts, or unknown routes would be a way to test keys past the limit.
      if (request.is404 && m && budget?.allowed) {
        const principal = await authenticate(address, m[1], false).catch(() => null);
        if (principal) await admit(request, reply, principal);
      }
      return;
    }
    if (budget && !budget.allowed) {
      reply.header('connection', 'close'); // a guessing loop gets no kept-alive connection to reuse
      throw new PresenceError(
        'rate_limited',
        `${budget.limit} failed authentications from this address in the current window; retry in ${budget.resetS} s`,
        { retryAfter: budget.resetS, extra: { limit: 'auth_failures' } },
      );
    }
    const principal = await admit(request, reply, await authenticate(address, m?.[1], header !== undefined && !m));
    requireScope(principal, need);
  });
}
