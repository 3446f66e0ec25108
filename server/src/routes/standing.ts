// /v1/standing: the standing intents a conversation set up (alerts, conditional actions) —
// list them, cancel one.
import { toStandingView } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { callerOf, type RouteDeps } from '../http/types';

const op = operations({ tag: 'standing', scope: 'talk' })({
  listStanding: {
    summary: 'Standing intents',
    description:
      "The account's active standing intents: what each watches for (a price line or a time of day), what it does when it fires, and when it fired last.",
    answer: 'Active standing intents',
    response: schemas.StandingList,
  },
  cancelStanding: {
    summary: 'Cancel a standing intent',
    description: 'Cancels a standing intent: it no longer fires. 404 when there is none with that id.',
    params: schemas.StandingParams,
    answer: 'The standing intent, now cancelled',
    response: schemas.StandingView,
    problems: ['not_found'],
  },
});

export const standingRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get('/v1/standing', op.listStanding, async (req) => ({ standing: (await core.standing.list(callerOf(req))).map(toStandingView) }));
  app.delete('/v1/standing/:id', op.cancelStanding, async (req) =>
    toStandingView(await core.standing.cancel(callerOf(req), req.params.id)),
  );
};
