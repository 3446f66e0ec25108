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
//
// A surface token (prs_surface_…) authenticates as itself only on surface routes
// (`config.surface`); anywhere else it must name a key it linked in Presence-Acting-For, and
// the request then runs as that key, through the same rate limit and scope check (see
// surfaces/surface-service.ts in core).
import {
  type Core,
  looksLikeSurfaceToken,
  PresenceError,
  type Principal,
  type RateDecision,
  type RateLimiterPort,
  requireScope,
  type ScopeRequirement,
  type SurfacePrincipal,
} from '@presence/core';
import { ACTING_FOR_HEADER } from '@presence/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientAddress } from './client-address';
import { rateLimitHeaders } from './rate-headers';

const BEARER = /^Bearer ([^\s]+)$/;

export function registerAuth(app: FastifyInstance, core: Core, authFailures: RateLimiterPort) {
  app.decorateRequest('principal', null);
  app.decorateRequest('surface', null);

  /** Sets the per-key headers for the key's counted request (429 past the limit). */
  function admitted(reply: FastifyReply, principal: Principal, rate: RateDecision) {
    reply.headers({ 'presence-mode': principal.kind, ...rateLimitHeaders(rate) });
    if (!rate.allowed) {
      throw new PresenceError('rate_limited', `this key made ${rate.limit} requests in the current window; retry in ${rate.resetS} s`, {
        retryAfter: rate.resetS,
      });
    }
    return principal;
  }

  /** Counts the request against its key and sets the per-key headers (429 past the limit). */
  async function admit(request: FastifyRequest, reply: FastifyReply, principal: Principal) {
    request.principal = principal;
    const hit = core.rateLimiter.hit(principal.keyId);
    return admitted(reply, principal, hit instanceof Promise ? await hit : hit);
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

  /** A request that presented a surface token: the surface itself, or the linked key it acts for. */
  async function surfaceRequest(
    request: FastifyRequest,
    reply: FastifyReply,
    address: string | null,
    token: string,
    need: ScopeRequirement | undefined,
  ) {
    let surface: SurfacePrincipal;
    try {
      if (!core.surfaces) throw new PresenceError('auth', 'this server keeps no surface tokens');
      surface = await core.surfaces.authenticate(token);
    } catch (e) {
      if (address !== null && e instanceof PresenceError && e.type === 'auth') await authFailures.hit(address);
      throw e;
    }
    request.surface = surface;
    const acting = request.headers[ACTING_FOR_HEADER];
    if (request.routeOptions.config.surface) {
      if (acting !== undefined)
        throw new PresenceError('invalid_request', "this route is the surface's own: send it without Presence-Acting-For");
      const rate = await core.rateLimiter.hit(surface.surfaceId);
      reply.headers({ 'presence-mode': 'live', ...rateLimitHeaders(rate) });
      if (!rate.allowed) throw new PresenceError('rate_limited', `retry in ${rate.resetS} s`, { retryAfter: rate.resetS });
      return;
    }
    if (acting === undefined || need === undefined) {
      throw new PresenceError(
        'scope',
        'a surface token acts only for a key it linked: send Presence-Acting-For: key_… (or use it on GET /v1/surface/events and to redeem link codes)',
      );
    }
    const principal = await admit(request, reply, await core.surfaces!.actingFor(surface, String(acting)));
    requireScope(principal, need);
  }

  /**
   * The common request, a key kept in memory on a keyed route, decided without a promise:
   * true when it was (admitted, or refused by a throw), false when nothing was done and
   * `check` decides. A promise when the key's count is asked of the database: it decides.
   * Every step is `check`'s own, in its order; only what needs a read is left to `check`.
   */
  function atOnce(request: FastifyRequest, reply: FastifyReply, need: ScopeRequirement, header: string): boolean | Promise<void> {
    const bearer = BEARER.exec(header)?.[1];
    if (!bearer || looksLikeSurfaceToken(bearer) || request.headers[ACTING_FOR_HEADER] !== undefined) return false;
    const budget = authFailures.peek(clientAddress(request.ip));
    if (budget instanceof Promise || !budget.allowed) return false;
    const principal = core.keys.authenticateAtOnce(bearer);
    if (!principal) return false;
    request.principal = principal;
    const hit = core.rateLimiter.hit(principal.keyId);
    if (hit instanceof Promise) return hit.then((rate) => requireScope(admitted(reply, principal, rate), need));
    requireScope(admitted(reply, principal, hit), need);
    return true;
  }

  // A callback hook: an async one costs every request a promise and a microtask turn.
  app.addHook('onRequest', (request, reply, done) => {
    // routeOptions is a getter that builds a fresh object on every read: read it once.
    const { config } = request.routeOptions;
    const header = request.headers.authorization;
    if (config.scope !== undefined && config.surface !== true && header !== undefined) {
      let decided: boolean | Promise<void>;
      try {
        decided = atOnce(request, reply, config.scope, header);
      } catch (e) {
        return done(e as Error);
      }
      if (decided instanceof Promise) return void decided.then(() => done(), done);
      if (decided) return done();
    }
    check(request, reply, config).then(() => done(), done);
  });

  /** Everything else: public routes, surface tokens, keys not in memory, and every refusal of a key. */
  async function check(request: FastifyRequest, reply: FastifyReply, config: FastifyRequest['routeOptions']['config']) {
    const surfaceRoute = config.surface === true;
    const need = surfaceRoute ? 'key' : config.scope;
    const header = request.headers.authorization;
    const m = header ? BEARER.exec(header) : null;
    const address = header === undefined ? null : clientAddress(request.ip);
    // The in-memory limiter answers at once: an await of its answer would only cost a turn.
    const peeked = address === null ? null : authFailures.peek(address);
    const budget = peeked instanceof Promise ? await peeked : peeked;
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
    const bearer = m?.[1];
    if (bearer && looksLikeSurfaceToken(bearer)) return surfaceRequest(request, reply, address, bearer, need);
    // Ignored silently, a caller would believe it acted for someone else while acting as itself.
    if (request.headers[ACTING_FOR_HEADER] !== undefined)
      throw new PresenceError(
        'invalid_request',
        'Presence-Acting-For goes with a surface token (prs_surface_…); a key acts only as itself',
      );
    const principal = await admit(request, reply, await authenticate(address, bearer, header !== undefined && !m));
    if (surfaceRoute) throw new PresenceError('scope', 'this route takes a surface token (prs_surface_…), not a key');
    requireScope(principal, need);
  }
}
