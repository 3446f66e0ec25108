// /v1/presence/me: the presence a key resolves to (GET), and changing it (PATCH).
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { callerOf, type RouteDeps } from '../http/types';

const op = operations({ tag: 'presence' })({
  getPresence: {
    scope: 'key',
    summary: 'The presence this key resolves to',
    description:
      "The one presence of the calling key's account: its name, model route, memory counts, wallet chain and spend label, preferences, and whether this key is live or test.",
    answer: 'The presence of the key’s account: name, model route, preferences, chain',
    response: schemas.PresenceView,
  },
  updatePresence: {
    scope: 'admin',
    summary: 'Change name, route.model or preferences',
    description:
      "Changes the presence's name, its model route (`local` or `provider:model`) or its preferences (merged key by key; null removes a key). Fields not sent stay as they are.",
    body: schemas.PresencePatch,
    answer: 'The presence as changed',
    response: schemas.PresenceView,
  },
});

export const presenceRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  // Not async: a kept view is answered as it is, without a promise (core.presence.me).
  app.get('/v1/presence/me', op.getPresence, (req) => core.presence.me(callerOf(req)));
  app.patch('/v1/presence/me', op.updatePresence, async (req) => core.presence.patch(callerOf(req), req.body));
};
