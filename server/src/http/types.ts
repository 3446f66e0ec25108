// Fastify declarations: each route declares the scope it needs in `config.scope`, and
// authenticated requests carry their principal.
import type { IdempotencyClaim, Principal, ScopeRequirement } from '@presence/core';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Omit for public routes (health, docs). */
    scope?: ScopeRequirement;
    /** Routes that manage Idempotency-Key themselves (streams). */
    ownIdempotency?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    idempotency: Extract<IdempotencyClaim, { kind: 'proceed' }> | null;
  }
}
