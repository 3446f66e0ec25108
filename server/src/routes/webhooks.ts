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
        tags,
        params: schemas.WebhookParams,
        body: schemas.WebhookReplayRequest,
        response: { 200: schemas.WebhookView },
      },
    },
    async (req) => hooks().replay(callerOf(req), req.params.id, req.body.since_event_id),
  );
};
