// /v1/chain/{tokens,pools,positions,safety}: read-only views of the chain; every result
// carries the block it was read at. One route per view, so each declares its own query and
// answer (the pools' `pair`, the safety view's required `token`) in the OpenAPI document.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operation } from '../http/operation';
import { callerOf, type RouteDeps } from '../http/types';
import { walletOf } from './wallet';

const common = { tags: ['chain'] };
const config = { scope: 'wallet:read' } as const;
const problems = ['chain_unavailable'] as const;

const getTokensView = operation({
  config,
  schema: {
    ...common,
    operationId: 'getTokensView',
    summary: 'The token list with USD prices',
    description: 'Every listed token: symbol, address, decimals, whether it is a stablecoin, and its USD price at `as_of_block`.',
    openapi: { answers: { 200: 'The tokens, read at one block' }, problems },
    response: { 200: schemas.TokensViewSchema },
  },
});

const getPoolsView = operation({
  config,
  schema: {
    ...common,
    operationId: 'getPoolsView',
    summary: 'DEX pools: reserves, price, depth',
    description: 'Every pool, or the one named by `pair` (404 when that pair has no pool), with reserves, price and USD depth.',
    openapi: { answers: { 200: 'The pools, read at one block' }, problems: [...problems, 'not_found'] },
    querystring: schemas.PoolsQuery,
    response: { 200: schemas.PoolsViewSchema },
  },
});

const getPositionsView = operation({
  config,
  schema: {
    ...common,
    operationId: 'getPositionsView',
    summary: "The wallet's holdings and LP positions",
    description: "The calling key's wallet: each holding and LP position, valued in USD at `as_of_block`.",
    openapi: { answers: { 200: 'The positions, read at one block' }, problems },
    response: { 200: schemas.PositionsViewSchema },
  },
});

const getSafetyView = operation({
  config,
  schema: {
    ...common,
    operationId: 'getSafetyView',
    summary: 'Is this token safe to trade?',
    description:
      'Measures a token by simulating a buy and a sell against its pool: taxes, round-trip loss, owner and minting; a verdict with reasons.',
    openapi: { answers: { 200: 'The verdict and what it was measured from, at one block' }, problems: [...problems, 'not_found'] },
    querystring: schemas.SafetyQuery,
    response: { 200: schemas.SafetyViewSchema },
  },
});

export const chainRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get('/v1/chain/tokens', getTokensView, async () => walletOf(core).views.tokens());
  app.get('/v1/chain/pools', getPoolsView, async (req) => walletOf(core).views.pools(req.query.pair));
  app.get('/v1/chain/positions', getPositionsView, async (req) => {
    const w = walletOf(core);
    return w.views.positions(await w.wallets.address(callerOf(req).accountId));
  });
  app.get('/v1/chain/safety', getSafetyView, async (req) => walletOf(core).views.safety(req.query.token));
};
