// Shared server types: what every route plugin receives (RouteDeps), and the Fastify
// declarations — each route declares the scope it needs in `config.scope`, and authenticated
// requests carry their principal. Routes import from here, never from ../app, so the app and
// its routes form no import circle.
import type { Core, IdempotencyClaim, Principal, ScopeRequirement, SurfacePrincipal } from '@presence/core';
import type * as schemas from '@presence/protocol';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { StreamCaps } from './stream-caps';
import type { StreamRegistry } from './stream-registry';

export type RouteDeps = {
  core: Core;
  streams: StreamRegistry;
  streamCaps: StreamCaps;
  heartbeatMs: number;
  health: () => Promise<z.infer<typeof schemas.Health>>;
  /** Readiness: throws 503 unavailable when the store or the chain does not answer. */
  ready: () => Promise<schemas.Ready>;
  /** The app's metrics in Prometheus text (metrics/metrics.ts). */
  metrics: { contentType: string; scrape(): Promise<string> };
  /** Set: GET /metrics needs it as a bearer token. */
  metricsToken: string | null;
};

/**
 * The key a scoped route's request was authenticated as. The auth hook sets it before any
 * handler of a route with `config.scope` runs; a handler of a public route asking for it is a
 * bug, said as such rather than read as undefined.
 */
export function callerOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new Error(`${req.routeOptions.url ?? 'an unmatched route'} reads a principal but declares no scope`);
  return req.principal;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Omit for public routes (health, docs). */
    scope?: ScopeRequirement;
    /** Routes that manage Idempotency-Key themselves (streams). */
    ownIdempotency?: boolean;
    /** Routes for a surface token itself (GET /v1/surface/events): no key, no Presence-Acting-For. */
    surface?: boolean;
  }
  interface FastifyRequest {
    /** Set by the auth hook on every route with a `config.scope`; read it there with `callerOf`. */
    principal: Principal | null;
    /** The surface token that authenticated the request (on its own, or acting for a linked key). */
    surface: SurfacePrincipal | null;
    idempotency: Extract<IdempotencyClaim, { kind: 'proceed' }> | null;
  }
}
