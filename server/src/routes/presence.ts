// /v1/presence/me: the presence a key resolves to (GET), and changing it (PATCH).
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerOf, type RouteDeps } from '../http/types';

export const presenceRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get(
    '/v1/presence/me',
    {
      config: { scope: 'key' },
      schema: {
        operationId: 'getPresence',
        openapi: { answers: { 200: 'The presence of the key’s account: name, model route, preferences, chain' } },
        summary: 'The presence this key resolves to',
        description:
          "The one presence of the calling key's account: its name, model route, memory counts, wallet chain and spend label, preferences, and whether this key is live or test.",
        tags: ['presence'],
        response: { 200: schemas.PresenceView },
      },
    },
    // Not async: a kept view is answered as it is, without a promise (core.presence.me).
    (req) => core.presence.me(callerOf(req)),
  );

  app.patch(
    '/v1/presence/me',
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'updatePresence',
        openapi: { answers: { 200: 'The presence as changed' } },
        summary: 'Change name, route.model or preferences',
        description:
          "Changes the presence's name, its model route (`local` or `provider:model`) or its preferences (merged key by key; null removes a key). Fields not sent stay as they are.",
        tags: ['presence'],
        body: schemas.PresencePatch,
        response: { 200: schemas.PresenceView },
      },
    },
    async (req) => core.presence.patch(callerOf(req), req.body),
  );
};
