// Memory: list, pin (idempotent), forget (404 when already gone).
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerOf, type RouteDeps } from '../http/types';

export const memoryRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const tags = ['memory'];
  app.get(
    '/v1/memory',
    {
      config: { scope: 'memory:read' },
      schema: {
        operationId: 'listMemory',
        openapi: { answers: { 200: 'Pinned keywords and the fading ones with their weights' } },
        summary: 'Pinned and fading keywords',
        description:
          'What the presence remembers: pinned keywords (kept until forgotten) and fading ones with their weight and the days they have left.',
        tags,
        response: { 200: schemas.MemoryListing },
      },
    },
    async (req) => core.memory.list(callerOf(req)),
  );

  app.post(
    '/v1/memory/pin',
    {
      config: { scope: 'memory:write' },
      schema: {
        operationId: 'pinMemory',
        openapi: { answers: { 200: 'The keyword is pinned (also when it already was)' }, problems: ['conflict'] },
        summary: 'Pin a keyword (a no-op 200 when already pinned)',
        description:
          'Pins a keyword (`<namespace>:<name>`, namespaces token, pair, addr, topic, pref) with an optional note; pinning one already pinned is a 200 with `changed: false`.',
        tags,
        body: schemas.PinRequest,
        response: { 200: schemas.PinResult },
      },
    },
    async (req) => core.memory.pin(callerOf(req), req.body.key, req.body.note),
  );

  app.delete(
    '/v1/memory/:key',
    {
      config: { scope: 'memory:write' },
      schema: {
        operationId: 'forgetMemory',
        openapi: { answers: { 200: 'The keyword is forgotten' }, problems: ['not_found'] },
        summary: 'Forget a keyword at once',
        description: 'Forgets a pinned or fading keyword at once; 404 when it is already gone.',
        tags,
        params: schemas.MemoryKeyParams,
        response: { 200: schemas.ForgetResult },
      },
    },
    async (req) => core.memory.forget(callerOf(req), req.params.key),
  );
};
