// /v1/chain/:view: read-only views of the chain (tokens, pools, positions, safety); every
// result carries the block it was read at.
import { PresenceError } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { callerOf, type RouteDeps } from '../http/types';
import { walletOf } from './wallet';

export const chainRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get(
    '/v1/chain/:view',
    {
      config: { scope: 'wallet:read' },
      schema: {
        operationId: 'getChainView',
        openapi: { answers: { 200: 'The view, read at one block (`as_of_block`)' }, problems: ['not_found', 'chain_unavailable'] },
        summary: 'tokens, pools (?pair=), positions, safety (?token=); every result carries as_of_block',
        tags: ['chain'],
        params: schemas.ChainViewParams,
        querystring: schemas.ChainViewQuery,
      },
    },
    async (req) => {
      const w = walletOf(core);
      switch (req.params.view) {
        case 'tokens':
          return w.views.tokens();
        case 'pools':
          return w.views.pools(req.query.pair);
        case 'positions':
          return w.views.positions(await w.wallets.address(callerOf(req).accountId));
        case 'safety':
          if (!req.query.token) throw new PresenceError('invalid_request', 'the safety view needs ?token=<symbol or address>');
          return w.views.safety(req.query.token);
      }
    },
  );
};
