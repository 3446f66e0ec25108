// Linking surfaces: an admin makes a one-time code; a bot or the extension redeems it
// (without any key) for a key of its own. Redeem attempts are limited per client address.
import { PresenceError } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RouteDeps } from '../app';

export const linksRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.post(
    '/v1/links',
    {
      config: { scope: 'admin' },
      schema: {
        summary: 'Make a one-time link code (default 10 minutes)',
        tags: ['links'],
        body: schemas.LinkRequest.optional(),
        response: { 201: schemas.LinkCode },
      },
    },
    async (req, reply) => {
      const p = req.principal!;
      core.links.assertCanLink(p.kind);
      return reply.code(201).send(await core.links.create(p.accountId, req.body?.scopes, req.body?.ttl_s));
    },
  );

  app.post(
    '/v1/links/:code/redeem',
    {
      schema: {
        summary: 'Redeem a link code for a new key (no Authorization; rate-limited per address)',
        tags: ['links'],
        security: [],
        params: schemas.RedeemParams,
        body: schemas.RedeemRequest,
        response: { 200: schemas.RedeemResult },
      },
    },
    async (req, reply) => {
      const rate = core.redeemLimiter.hit(`redeem:${req.ip}`);
      reply
        .header('ratelimit-limit', String(rate.limit))
        .header('ratelimit-remaining', String(rate.remaining))
        .header('ratelimit-reset', String(rate.resetS));
      if (!rate.allowed) {
        throw new PresenceError('rate_limited', `too many redeem attempts from this address; retry in ${rate.resetS} s`, {
          retryAfter: rate.resetS,
        });
      }
      return core.links.redeem(req.params.code, req.body);
    },
  );
};
