// /v1/chain/{tokens,pools,positions,safety}: read-only views of the chain; every result
// carries the block it was read at. One route per view, so each declares its own query and
// answer (the pools' `pair`, the safety view's required `token`) in the OpenAPI document.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { callerOf, type RouteDeps } from '../http/types';
import { walletOf } from './wallet';

const problems = ['chain_unavailable'] as const;

const op = operations({ tag: 'chain', scope: 'wallet:read' })({
  getTokensView: {
    summary: 'The token list with USD prices',
    description: 'Every listed token: symbol, address, decimals, whether it is a stablecoin, and its USD price at `as_of_block`.',
    answer: 'The tokens, read at one block',
    response: schemas.TokensViewSchema,
    problems,
  },
  getPoolsView: {
    summary: 'DEX pools: reserves, price, depth',
    description: 'Every pool, or the one named by `pair` (404 when that pair has no pool), with reserves, price and USD depth.',
    querystring: schemas.PoolsQuery,
    answer: 'The pools, read at one block',
    response: schemas.PoolsViewSchema,
    problems: [...problems, 'not_found'],
  },
  getPositionsView: {
    summary: "The wallet's holdings and LP positions",
    description: "The calling key's wallet: each holding and LP position, valued in USD at `as_of_block`.",
    answer: 'The positions, read at one block',
    response: schemas.PositionsViewSchema,
    problems,
  },
  getSafetyView: {
    summary: 'Is this token safe to trade?',
    description:
      'Measures a token by simulating a buy and a sell against its pool: taxes, round-trip loss, owner and minting; a verdict with reasons.',
    querystring: schemas.SafetyQuery,
    answer: 'The verdict and what it was measured from, at one block',
    response: schemas.SafetyViewSchema,
    problems: [...problems, 'not_found'],
  },
});

export const chainRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get('/v1/chain/tokens', op.getTokensView, async () => walletOf(core).views.tokens());
  app.get('/v1/chain/pools', op.getPoolsView, async (req) => walletOf(core).views.pools(req.query.pair));
  app.get('/v1/chain/positions', op.getPositionsView, async (req) => {
    const w = walletOf(core);
    return w.views.positions(await w.wallets.address(callerOf(req).accountId));
  });
  app.get('/v1/chain/safety', op.getSafetyView, async (req) => walletOf(core).views.safety(req.query.token));
};
