import { looksLikeSurfaceToken, PresenceError } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clientAddress } from '../http/client-address';
import { operations } from '../http/operation';
import { rateLimitHeaders } from '../http/rate-headers';
import { callerOf, type RouteDeps } from '../http/types';

const op = operations({ tag: 'links' })({
  createLinkCode: {
    scope: 'admin',
    summary: 'Make a one-time link code (default 10 minutes)',
    description:
      'A one-time code a chat surface (a bot, the extension) redeems for a key of this account with the given scopes (default: those of the calling key); it expires after `ttl_s` (default 600 s).',
    body: schemas.LinkRequest.optional(),
    status: 201,
    answer: 'The one-time code and when it expires',
    response: schemas.LinkCode,
    problems: ['conflict'],
  },
  redeemLinkCode: {
    summary:
      'Redeem a link code for a new key (no Authorization: rate-limited per address; or a surface token as bearer: linked through it, rate-limited per token)',
    description:
      "Trades a link code for a new live key for the surface user. Without Authorization the answer carries the key's secret and attempts are limited per address; with a surface token as bearer the key is linked through that surface and the answer carries its id only (the surface then acts for it with Presence-Acting-For).",
    params: schemas.RedeemParams,
    body: schemas.RedeemRequest,
    answer:
      'A new key for the surface user: its secret shown this once; redeemed with a surface token, the key id only (the surface acts for it with Presence-Acting-For)',
    response: schemas.RedeemAnswer,
    problems: ['not_found', 'conflict', 'rate_limited', 'store_unavailable', 'auth'],
  },
});

// No key: an address, or a surface token as bearer (openapi.ts documents both).
export const linksRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.post('/v1/links', op.createLinkCode, async (req, reply) => {
    const p = callerOf(req);
    core.links.assertCanLink(p);
    return reply.code(201).send(await core.links.create(p.accountId, req.body?.scopes, req.body?.ttl_s));
  });

  app.post('/v1/links/:code/redeem', op.redeemLinkCode, async (req, reply) => {
    const bearer = /^Bearer (prs_surface_\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined && looksLikeSurfaceToken(bearer)) {
      if (!core.surfaces) throw new PresenceError('auth', 'this server keeps no surface tokens');
      const { result, rate } = await core.surfaces.redeem(await core.surfaces.authenticate(bearer), req.params.code, req.body);
      reply.headers(rateLimitHeaders(rate));
      return result;
    }
    const attempt = await core.links.attemptRedeem(clientAddress(req.ip));
    reply.headers(rateLimitHeaders(attempt.rate));
    const { key, ...rest } = await core.links.redeem(req.params.code, req.body, attempt);
    return { ...rest, key: key as string };
  });
};
