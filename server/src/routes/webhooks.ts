// /v1/webhooks: endpoints an admin key registers for signed deliveries of its account's
// events (DESIGN.md "Webhooks"); the secret, the deliveries log, a test ping and a replay.
// Transport only: core's webhook service decides everything.
import type { ProblemType } from '@presence/protocol';
import * as schemas from '@presence/protocol';
import type { FastifySchema } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operation } from '../http/operation';
import { served } from '../http/served';
import { callerOf, type RouteDeps } from '../http/types';

const admin = { scope: 'admin' } as const;
const tags = ['webhooks'];

/**
 * An operation on one endpoint (`/v1/webhooks/:id…`): admin only, its 200 answer and the
 * problems it adds, then what else it validates (body, query) and answers.
 */
const onEndpoint = <E extends FastifySchema>(
  operationId: string,
  answer: string,
  problems: readonly ProblemType[],
  summary: string,
  description: string,
  rest: E,
) =>
  operation({
    config: admin,
    schema: {
      operationId,
      openapi: { answers: { 200: answer }, problems },
      summary,
      description,
      tags,
      params: schemas.WebhookParams,
      ...rest,
    },
  });

const createWebhook = operation({
  config: admin,
  schema: {
    operationId: 'createWebhook',
    openapi: { answers: { 201: 'The endpoint with its signing secret, shown this once' }, problems: ['conflict'] },
    summary: 'Register a webhook endpoint (at most 16 per account)',
    description:
      "Registers an https URL to receive the account's events as signed requests (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature), in event order, at least once, from the newest event on. The URL must resolve to a public address (unless PRESENCE_WEBHOOK_ALLOW_PRIVATE=1). The answer carries the signing secret, shown once; a 17th endpoint is 409.",
    tags,
    body: schemas.WebhookCreateRequest,
    response: { 201: schemas.WebhookCreated },
  },
});

const listWebhooks = operation({
  config: admin,
  schema: {
    operationId: 'listWebhooks',
    openapi: { answers: { 200: "The account's webhook endpoints" } },
    summary: 'Webhook endpoints',
    description: "The account's webhook endpoints, with their state, the event types they take and the cursor (the last event id handled).",
    tags,
    response: { 200: schemas.WebhookList },
  },
});

const getWebhook = onEndpoint(
  'getWebhook',
  'The endpoint',
  ['not_found'],
  'A webhook endpoint',
  'One webhook endpoint of the account: its URL, state (and why it was disabled), event types and cursor.',
  { response: { 200: schemas.WebhookView } },
);

const updateWebhook = onEndpoint(
  'updateWebhook',
  'The endpoint as changed',
  ['not_found'],
  'Change a webhook endpoint (url, events, description, state)',
  "Changes an endpoint's URL, event types, description or state. Enabling a disabled endpoint resumes delivery from its cursor and starts the retry schedule again.",
  { body: schemas.WebhookUpdateRequest, response: { 200: schemas.WebhookView } },
);

const deleteWebhook = onEndpoint(
  'deleteWebhook',
  'The endpoint, now deleted (nothing more is sent to it)',
  ['not_found'],
  'Delete a webhook endpoint',
  'Deletes the endpoint: nothing more is sent to it (a request in flight finishes). Answers the endpoint as it was.',
  { response: { 200: schemas.WebhookView } },
);

const rotateWebhookSecret = onEndpoint(
  'rotateWebhookSecret',
  'The new secret; the old one keeps signing beside it for 24 h',
  ['not_found'],
  "Rotate a webhook endpoint's signing secret",
  'Makes a new signing secret, shown once. For 24 hours every delivery is signed with both the new and the previous secret, so a receiver can switch without missing one.',
  { response: { 200: schemas.WebhookSecret } },
);

const testWebhook = onEndpoint(
  'testWebhook',
  'How the ping delivery went',
  ['not_found', 'conflict'],
  'Send a signed `ping` to the endpoint now',
  'Sends a signed `ping` delivery to the endpoint now and answers how it went (status, error, duration); it is logged with the other attempts. 409 while a delivery to the endpoint is in flight.',
  { response: { 200: schemas.WebhookTestResult } },
);

const listWebhookDeliveries = onEndpoint(
  'listWebhookDeliveries',
  'Delivery attempts, newest first (the newest 100 are kept)',
  ['not_found'],
  "A webhook endpoint's delivery attempts",
  "The endpoint's latest delivery attempts, newest first: the webhook-id, event, attempt number, outcome, HTTP status, duration and when the next attempt is due.",
  { querystring: schemas.WebhookDeliveriesQuery, response: { 200: schemas.WebhookDeliveryList } },
);

const replayWebhook = onEndpoint(
  'replayWebhook',
  'The endpoint, its cursor moved back: the events after it are sent again',
  ['not_found', 'conflict'],
  'Send the events after an event id again, in order',
  "Moves the endpoint's cursor back so the events after `since_event_id` are delivered again, in order, with their original webhook-id. 409 while a delivery to the endpoint is in flight.",
  { body: schemas.WebhookReplayRequest, response: { 200: schemas.WebhookView } },
);

export const webhooksRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const hooks = () => served(core.webhooks, 'not_found', 'this server keeps no webhooks');
  app.post('/v1/webhooks', createWebhook, async (req, reply) => reply.code(201).send(await hooks().create(callerOf(req), req.body)));
  app.get('/v1/webhooks', listWebhooks, async (req) => ({ webhooks: await hooks().list(callerOf(req)) }));
  app.get('/v1/webhooks/:id', getWebhook, async (req) => hooks().get(callerOf(req), req.params.id));
  app.patch('/v1/webhooks/:id', updateWebhook, async (req) => hooks().update(callerOf(req), req.params.id, req.body));
  app.delete('/v1/webhooks/:id', deleteWebhook, async (req) => {
    const p = callerOf(req);
    const view = await hooks().get(p, req.params.id);
    await hooks().remove(p, req.params.id);
    return view;
  });
  app.post('/v1/webhooks/:id/rotate-secret', rotateWebhookSecret, async (req) => hooks().rotate(callerOf(req), req.params.id));
  app.post('/v1/webhooks/:id/test', testWebhook, async (req) => hooks().ping(callerOf(req), req.params.id));
  app.get('/v1/webhooks/:id/deliveries', listWebhookDeliveries, async (req) => ({
    deliveries: await hooks().deliveries(callerOf(req), req.params.id, req.query.limit),
  }));
  app.post('/v1/webhooks/:id/replay', replayWebhook, async (req) => hooks().replay(callerOf(req), req.params.id, req.body.since_event_id));
};
