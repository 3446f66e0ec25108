// /v1/webhooks: endpoints an admin key registers for signed deliveries of its account's
// events (DESIGN.md "Webhooks"); the secret, the deliveries log, a test ping and a replay.
// Transport only: core's webhook service decides everything.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { served } from '../http/served';
import { callerOf, type RouteDeps } from '../http/types';

/** An operation on one endpoint (`/v1/webhooks/:id…`): it names the endpoint, which may not be there. */
const onEndpoint = { params: schemas.WebhookParams, problems: ['not_found'] } as const;

const op = operations({ tag: 'webhooks', scope: 'admin' })({
  createWebhook: {
    summary: 'Register a webhook endpoint (at most 16 per account)',
    description:
      "Registers an https URL to receive the account's events as signed requests (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature), in event order, at least once, from the newest event on. The URL must resolve to a public address (unless PRESENCE_WEBHOOK_ALLOW_PRIVATE=1). The answer carries the signing secret, shown once; a 17th endpoint is 409.",
    body: schemas.WebhookCreateRequest,
    status: 201,
    answer: 'The endpoint with its signing secret, shown this once',
    response: schemas.WebhookCreated,
    problems: ['conflict'],
  },
  listWebhooks: {
    summary: 'Webhook endpoints',
    description: "The account's webhook endpoints, with their state, the event types they take and the cursor (the last event id handled).",
    answer: "The account's webhook endpoints",
    response: schemas.WebhookList,
  },
  getWebhook: {
    summary: 'A webhook endpoint',
    description: 'One webhook endpoint of the account: its URL, state (and why it was disabled), event types and cursor.',
    ...onEndpoint,
    answer: 'The endpoint',
    response: schemas.WebhookView,
  },
  updateWebhook: {
    summary: 'Change a webhook endpoint (url, events, description, state)',
    description:
      "Changes an endpoint's URL, event types, description or state. Enabling a disabled endpoint resumes delivery from its cursor and starts the retry schedule again.",
    ...onEndpoint,
    body: schemas.WebhookUpdateRequest,
    answer: 'The endpoint as changed',
    response: schemas.WebhookView,
  },
  deleteWebhook: {
    summary: 'Delete a webhook endpoint',
    description: 'Deletes the endpoint: nothing more is sent to it (a request in flight finishes). Answers the endpoint as it was.',
    ...onEndpoint,
    answer: 'The endpoint, now deleted (nothing more is sent to it)',
    response: schemas.WebhookView,
  },
  rotateWebhookSecret: {
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      'Makes a new signing secret, shown once. For 24 hours every delivery is signed with both the new and the previous secret, so a receiver can switch without missing one.',
    ...onEndpoint,
    answer: 'The new secret; the old one keeps signing beside it for 24 h',
    response: schemas.WebhookSecret,
  },
  testWebhook: {
    summary: 'Send a signed `ping` to the endpoint now',
    description:
      'Sends a signed `ping` delivery to the endpoint now and answers how it went (status, error, duration); it is logged with the other attempts. 409 while a delivery to the endpoint is in flight.',
    ...onEndpoint,
    answer: 'How the ping delivery went',
    response: schemas.WebhookTestResult,
    problems: ['not_found', 'conflict'],
  },
  listWebhookDeliveries: {
    summary: "A webhook endpoint's delivery attempts",
    description:
      "The endpoint's latest delivery attempts, newest first: the webhook-id, event, attempt number, outcome, HTTP status, duration and when the next attempt is due.",
    ...onEndpoint,
    querystring: schemas.WebhookDeliveriesQuery,
    answer: 'Delivery attempts, newest first (the newest 100 are kept)',
    response: schemas.WebhookDeliveryList,
  },
  replayWebhook: {
    summary: 'Send the events after an event id again, in order',
    description:
      "Moves the endpoint's cursor back so the events after `since_event_id` are delivered again, in order, with their original webhook-id. 400 for an id past the account's newest event (the cursor would skip the events still to come); 409 while a delivery to the endpoint is in flight.",
    ...onEndpoint,
    body: schemas.WebhookReplayRequest,
    answer: 'The endpoint, its cursor moved back: the events after it are sent again',
    response: schemas.WebhookView,
    problems: ['not_found', 'conflict'],
  },
});

export const webhooksRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const hooks = () => served(core.webhooks, 'not_found', 'this server keeps no webhooks');
  app.post('/v1/webhooks', op.createWebhook, async (req, reply) => reply.code(201).send(await hooks().create(callerOf(req), req.body)));
  app.get('/v1/webhooks', op.listWebhooks, async (req) => ({ webhooks: await hooks().list(callerOf(req)) }));
  app.get('/v1/webhooks/:id', op.getWebhook, async (req) => hooks().get(callerOf(req), req.params.id));
  app.patch('/v1/webhooks/:id', op.updateWebhook, async (req) => hooks().update(callerOf(req), req.params.id, req.body));
  app.delete('/v1/webhooks/:id', op.deleteWebhook, async (req) => {
    const p = callerOf(req);
    const view = await hooks().get(p, req.params.id);
    await hooks().remove(p, req.params.id);
    return view;
  });
  app.post('/v1/webhooks/:id/rotate-secret', op.rotateWebhookSecret, async (req) => hooks().rotate(callerOf(req), req.params.id));
  app.post('/v1/webhooks/:id/test', op.testWebhook, async (req) => hooks().ping(callerOf(req), req.params.id));
  app.get('/v1/webhooks/:id/deliveries', op.listWebhookDeliveries, async (req) => ({
    deliveries: await hooks().deliveries(callerOf(req), req.params.id, req.query.limit),
  }));
  app.post('/v1/webhooks/:id/replay', op.replayWebhook, async (req) =>
    hooks().replay(callerOf(req), req.params.id, req.body.since_event_id),
  );
};
