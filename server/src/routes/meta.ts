// What describes the server rather than a presence, all public: GET /v1/health (liveness and
// the chain head), GET /v1/ready (readiness: the store and chain answer), GET /v1/openapi.json
// (generated from the zod schemas) and /docs (it rendered).
import swaggerUi from '@fastify/swagger-ui';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import type { RouteDeps } from '../http/types';

// All public: no scope (openapi.ts documents them as needing no credential).
const op = operations({ tag: 'meta' })({
  getHealth: {
    summary: 'Liveness and chain head; no key needed',
    description:
      'Liveness: the server answers, its version, its store, and the chain head (null when the chain did not answer within 1 s). Needs no key.',
    answer: 'The server is up: its version, the chain head (null if it did not answer within 1 s) and its store',
    response: schemas.Health,
  },
  getReady: {
    summary: 'Readiness: the store and the chain answer within 1 s; no key needed',
    description:
      'Readiness for a load balancer: 200 when the store and the chain answered within 1 s each, else 503 `unavailable` naming what failed. Needs no key.',
    answer: 'Ready: each dependency answered, with how long it took',
    response: schemas.Ready,
    problems: ['unavailable'],
  },
  getOpenapi: {
    summary: 'This document (OpenAPI 3.1); no key needed',
    description:
      'This OpenAPI 3.1 document, generated from the same zod schemas the server validates with. Needs no key; /docs renders it.',
    answer: 'The OpenAPI 3.1 document of this server',
  },
});

export const metaRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { health, ready }) => {
  app.get('/v1/health', op.getHealth, async () => health());
  app.get('/v1/ready', op.getReady, async () => ready());
  // @fastify/swagger is registered on the root app (it must see every route as it is added);
  // its document is read here.
  app.get('/v1/openapi.json', op.getOpenapi, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/docs' });
};
