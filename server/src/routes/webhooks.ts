// /v1/webhooks: endpoints an admin key registers for signed deliveries of its account's
// events (DESIGN.md "Webhooks"); the secret, the deliveries log, a test ping and a replay.
// Transport only: core's webhook service decides everything.
import { PresenceError } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerOf, type RouteDeps } from '../http/types';

export const webhooksRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const hooks = () => {
    if (!core.webhooks) throw new PresenceError('not_found', 'this server keeps no webhooks');
    return core.webhooks;
  };
  const admin = { scope: 'admin' } as const;
  const tags = ['webhooks'];

  app.post(
    '/v1/webhooks',
    {
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
    },
    async (req, reply) => reply.code(201).send(await hooks().create(callerOf(req), req.body)),
  );
  app.get(
    '/v1/webhooks',
    {
      config: admin,
      schema: {
        operationId: 'listWebhooks',
        openapi: { answers: { 200: "The account's webhook endpoints" } },
        summary: 'Webhook endpoints',
        description:
          "The account's webhook endpoints, with their state, the event types they take and the cursor (the last event id handled).",
        tags,
        response: { 200: schemas.WebhookList },
      },
    },
    async (req) => ({ webhooks: await hooks().list(callerOf(req)) }),
  );
  app.get(
    '/v1/webhooks/:id',
    {
      config: admin,
      schema: {
        operationId: 'getWebhook',
        openapi: { answers: { 200: 'The endpoint' }, problems: ['not_found'] },
        summary: 'A webhook endpoint',
        description: 'One webhook endpoint of the account: its URL, state (and why it was disabled), event types and cursor.',
        tags,
        params: schemas.WebhookParams,
        response: { 200: schemas.WebhookView },
      },
    },
    async (req) => hooks().get(callerOf(req), req.params.id),
  );
  app.patch(
    '/v1/webhooks/:id',
    {
      config: admin,
      schema: {
        operationId: 'updateWebhook',
        openapi: { answers: { 200: 'The endpoint as changed' }, problems: ['not_found'] },
        summary: 'Change a webhook endpoint (url, events, description, state)',
        description:
          "Changes an endpoint's URL, event types, description or state. Enabling a disabled endpoint resumes delivery from its cursor and starts the retry schedule again.",
        tags,
        params: schemas.WebhookParams,
        body: schemas.WebhookUpdateRequest,
        response: { 200: schemas.WebhookView },
      },
    },
    async (req) => hooks().update(callerOf(req), req.params.id, req.body),
  );
  app.delete(
    '/v1/webhooks/:id',
    {
      config: admin,
      schema: {
        operationId: 'deleteWebhook',
        openapi: { answers: { 200: 'The endpoint, now deleted (nothing more is sent to it)' }, problems: ['not_found'] },
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint: nothing more is sent to it (a request in flight finishes). Answers the endpoint as it was.',
        tags,
        params: schemas.WebhookParams,
        response: { 200: schemas.WebhookView },
      },
    },
    async (req) => {
      const p = callerOf(req);
      const view = await hooks().get(p, req.params.id);
      await hooks().remove(p, req.params.id);
      return view;
    },
  );
  app.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: admin,
      schema: {
        operationId: 'rotateWebhookSecret',
        openapi: { answers: { 200: 'The new secret; the old one keeps signing beside it for 24 h' }, problems: ['not_found'] },
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          'Makes a new signing secret, shown once. For 24 hours every delivery is signed with both the new and the previous secret, so a receiver can switch without missing one.',
        tags,
        params: schemas.WebhookParams,
        response: { 200: schemas.WebhookSecret },
      },
    },
    async (req) => hooks().rotate(callerOf(req), req.params.id),
  );
  app.post(
    '/v1/webhooks/:id/test',
    {
      config: admin,
      schema: {
        operationId: 'testWebhook',
        openapi: { answers: { 200: 'How the ping delivery went' }, problems: ['not_found', 'conflict'] },
        summary: 'Send a signed `ping` to the endpoint now',
        description:
          'Sends a signed `ping` delivery to the endpoint now and answers how it went (status, error, duration); it is logged with the other attempts. 409 while a delivery to the endpoint is in flight.',
        tags,
        params: schemas.WebhookParams,
        response: { 200: schemas.WebhookTestResult },
      },
    },
    async (req) => hooks().ping(callerOf(req), req.params.id),
  );
  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: admin,
      schema: {
        operationId: 'listWebhookDeliveries',
        openapi: { answers: { 200: 'Delivery attempts, newest first (the newest 100 are kept)' }, problems: ['not_found'] },
        summary: "A webhook endpoint's delivery attempts",
        description:
          "The endpoint's latest delivery attempts, newest first: the webhook-id, event, attempt number, outcome, HTTP status, duration and when the next attempt is due.",
        tags,
        params: schemas.WebhookParams,
        querystring: schemas.WebhookDeliveriesQuery,
        response: { 200: schemas.WebhookDeliveryList },
      },
    },
    async (req) => ({ deliveries: await hooks().deliveries(callerOf(req), req.params.id, req.query.limit) }),
  );
  app.post(
    '/v1/webhooks/:id/replay',
    {
      config: admin,
      schema: {
        operationId: 'replayWebhook',
        openapi: {
          answers: { 200: 'The endpoint, its cursor moved back: the events after it are sent again' },
          problems: ['not_found', 'conflict'],
        },
        summary: 'Send the events after an event id again, in order',
        description:
          "Moves the endpoint's cursor back so the events after `since_event_id` are delivered again, in order, with their original webhook-id. 409 while a delivery to the endpoint is in flight.",
        tags,
        params: schemas.WebhookParams,
        body: schemas.WebhookReplayRequest,
        response: { 200: schemas.WebhookView },
      },
    },
    async (req) => hooks().replay(callerOf(req), req.params.id, req.body.since_event_id),
  );
};
