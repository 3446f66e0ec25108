// /v1/standing: the standing intents a conversation set up (alerts, conditional actions) —
// list them, cancel one.
import { toStandingView } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerOf, type RouteDeps } from '../http/types';

export const standingRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get(
    '/v1/standing',
    {
      config: { scope: 'talk' },
      schema: {
        operationId: 'listStanding',
        openapi: { answers: { 200: 'Active standing intents' } },
        summary: 'Standing intents',
        description:
          "The account's active standing intents: what each watches for (a price line or a time of day), what it does when it fires, and when it fired last.",
        tags: ['standing'],
        response: { 200: schemas.StandingList },
      },
    },
    async (req) => ({ standing: (await core.standing.list(callerOf(req))).map(toStandingView) }),
  );
  app.delete(
    '/v1/standing/:id',
    {
      config: { scope: 'talk' },
      schema: {
        operationId: 'cancelStanding',
        openapi: { answers: { 200: 'The standing intent, now cancelled' }, problems: ['not_found'] },
        summary: 'Cancel a standing intent',
        description: 'Cancels a standing intent: it no longer fires. 404 when there is none with that id.',
        tags: ['standing'],
        params: schemas.StandingParams,
        response: { 200: schemas.StandingView },
      },
    },
    async (req) => toStandingView(await core.standing.cancel(callerOf(req), req.params.id)),
  );
};
