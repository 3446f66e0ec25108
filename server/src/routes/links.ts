import { looksLikeSurfaceToken, PresenceError } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clientAddress } from '../http/client-address';
import { callerOf, type RouteDeps } from '../http/types';

export const linksRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.post(
    '/v1/links',
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'createLinkCode',
        openapi: { answers: { 201: 'The one-time code and when it expires' }, problems: ['conflict'] },
        summary: 'Make a one-time link code (default 10 minutes)',
        description:
          'A one-time code a chat surface (a bot, the extension) redeems for a key of this account with the given scopes (default: those of the calling key); it expires after `ttl_s` (default 600 s).',
        tags: ['links'],
        body: schemas.LinkRequest.optional(),
        response: { 201: schemas.LinkCode },
      },
    },
    async (req, reply) => {
      const p = callerOf(req);
      core.links.assertCanLink(p);
      return reply.code(201).send(await core.links.create(p.accountId, req.body?.scopes, req.body?.ttl_s));
    },
  );

  app.post(
    '/v1/links/:code/redeem',
    {
      schema: {
        operationId: 'redeemLinkCode',
        openapi: {
          answers: {
            200: 'A new key for the surface user: its secret shown this once; redeemed with a surface token, the key id only (the surface acts for it with Presence-Acting-For)',
          },
          problems: ['not_found', 'conflict', 'rate_limited', 'store_unavailable', 'auth'],
        },
        summary:
          'Redeem a link code for a new key (no Authorization: rate-limited per address; or a surface token as bearer: linked through it, rate-limited per token)',
        description:
          "Trades a link code for a new live key for the surface user. Without Authorization the answer carries the key's secret and attempts are limited per address; with a surface token as bearer the key is linked through that surface and the answer carries its id only (the surface then acts for it with Presence-Acting-For).",
        tags: ['links'],
        security: [],
        params: schemas.RedeemParams,
        body: schemas.RedeemRequest,
        response: { 200: schemas.RedeemAnswer },
      },
    },
    async (req, reply) => {
      const bearer = /^Bearer (prs_surface_\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (bearer !== undefined && looksLikeSurfaceToken(bearer)) {
        if (!core.surfaces) throw new PresenceError('auth', 'this server keeps no surface tokens');
        const { result, rate } = await core.surfaces.redeem(await core.surfaces.authenticate(bearer), req.params.code, req.body);
        reply.headers({
          'ratelimit-limit': String(rate.limit),
          'ratelimit-remaining': String(rate.remaining),
          'ratelimit-reset': String(rate.resetS),
        });
        return result;
      }
      const attempt = await core.links.attemptRedeem(clientAddress(req.ip));
      reply.headers({
        'ratelimit-limit': String(attempt.rate.limit),
        'ratelimit-remaining': String(attempt.rate.remaining),
        'ratelimit-reset': String(attempt.rate.resetS),
      });
      const { key, ...rest } = await core.links.redeem(req.params.code, req.body, attempt);
      return { ...rest, key: key as string };
    },
  );
};
