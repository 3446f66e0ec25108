// What describes the server rather than a presence, all public: GET /v1/health (liveness and
// the chain head), GET /v1/openapi.json (generated from the zod schemas) and /docs (it rendered).
import swaggerUi from '@fastify/swagger-ui';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RouteDeps } from '../http/types';

export const metaRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { health }) => {
  app.get(
    '/v1/health',
    { schema: { summary: 'Liveness and chain head; no key needed', tags: ['meta'], response: { 200: schemas.Health } } },
    async () => health(),
  );
  // @fastify/swagger is registered on the root app (it must see every route as it is added);
  // its document is read here.
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/docs' });
};
