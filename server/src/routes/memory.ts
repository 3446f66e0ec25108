// Memory: list, pin (idempotent), forget (404 when already gone).
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { callerOf, type RouteDeps } from '../http/types';

const op = operations({ tag: 'memory', scope: 'memory:write' })({
  listMemory: {
    scope: 'memory:read',
    summary: 'Pinned and fading keywords',
    description:
      'What the presence remembers: pinned keywords (kept until forgotten) and fading ones with their weight and the days they have left.',
    answer: 'Pinned keywords and the fading ones with their weights',
    response: schemas.MemoryListing,
  },
  pinMemory: {
    summary: 'Pin a keyword (a no-op 200 when already pinned)',
    description:
      'Pins a keyword (`<namespace>:<name>`, namespaces token, pair, addr, topic, pref) with an optional note; pinning one already pinned is a 200 with `changed: false`.',
    body: schemas.PinRequest,
    answer: 'The keyword is pinned (also when it already was)',
    response: schemas.PinResult,
    problems: ['conflict'],
  },
  forgetMemory: {
    summary: 'Forget a keyword at once',
    description: 'Forgets a pinned or fading keyword at once; 404 when it is already gone.',
    params: schemas.MemoryKeyParams,
    answer: 'The keyword is forgotten',
    response: schemas.ForgetResult,
    problems: ['not_found'],
  },
});

export const memoryRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get('/v1/memory', op.listMemory, async (req) => core.memory.list(callerOf(req)));
  app.post('/v1/memory/pin', op.pinMemory, async (req) => core.memory.pin(callerOf(req), req.body.key, req.body.note));
  app.delete('/v1/memory/:key', op.forgetMemory, async (req) => core.memory.forget(callerOf(req), req.params.key));
};
