// What describes the server rather than a presence, all public: GET /v1/health (liveness and
// the chain head), GET /v1/ready (readiness: the store and chain answer), GET /v1/openapi.json
// (generated from the zod schemas) and /docs (it rendered).
import swaggerUi from '@fastify/swagger-ui';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RouteDeps } from '../http/types';

export const metaRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { health, ready }) => {
  app.get(
    '/v1/health',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness and chain head; no key needed',
        description:
          'Liveness: the server answers, its version, its store, and the chain head (null when the chain did not answer within 1 s). Needs no key.',
        tags: ['meta'],
        response: { 200: schemas.Health },
        openapi: { answers: { 200: 'The server is up: its version, the chain head (null if it did not answer within 1 s) and its store' } },
      },
    },
    async () => health(),
  );
  app.get(
    '/v1/ready',
    {
      schema: {
        operationId: 'getReady',
        summary: 'Readiness: the store and the chain answer within 1 s; no key needed',
        description:
          'Readiness for a load balancer: 200 when the store and the chain answered within 1 s each, else 503 `unavailable` naming what failed. Needs no key.',
        tags: ['meta'],
        response: { 200: schemas.Ready },
        openapi: {
          answers: { 200: 'Ready: each dependency answered, with how long it took' },
          problems: ['unavailable'],
        },
      },
    },
    async () => ready(),
  );
  // @fastify/swagger is registered on the root app (it must see every route as it is added);
  // its document is read here.
  app.get(
    '/v1/openapi.json',
    {
      schema: {
        operationId: 'getOpenapi',
        summary: 'This document (OpenAPI 3.1); no key needed',
        description:
          'This OpenAPI 3.1 document, generated from the same zod schemas the server validates with. Needs no key; /docs renders it.',
        tags: ['meta'],
        openapi: { answers: { 200: 'The OpenAPI 3.1 document of this server' } },
      },
    },
    async () => app.swagger(),
  );
  await app.register(swaggerUi, { routePrefix: '/docs' });
};
