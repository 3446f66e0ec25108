// /v1/wallet: the wallet's view, the spend policy, intents and withdrawals. Every handler is a
// call into core's wallet domain (held confirmations are in confirm.ts, chain views in chain.ts).
import type { Core } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Address } from 'viem';
import { operations } from '../http/operation';
import { served } from '../http/served';
import { callerOf, type RouteDeps } from '../http/types';

/** The wallet domain, or 503 chain_unavailable on a server without a chain. */
export const walletOf = (core: Core) => served(core.wallet, 'chain_unavailable', 'no chain is configured for this server');
const sendIntentResult = (reply: FastifyReply, r: schemas.IntentResult) => reply.code(r.status === 'done' ? 200 : 202).send(r);

const idemKey = (req: FastifyRequest) => {
  const k = req.headers['idempotency-key'];
  return typeof k === 'string' ? k : null;
};

/** An intent and a withdrawal are both actions: the same answers (200 when done, 202 when held), problems and result. */
const action = {
  answers: { 200: 'Executed: the transaction and its block', 202: 'Held for a yes: the confirm_id and when it expires' },
  responses: { 200: schemas.IntentDone, 202: schemas.IntentHeld },
  problems: ['policy_block', 'intent_unresolved', 'conflict', 'chain_reverted', 'chain_rejected', 'chain_unavailable'],
} as const;

const op = operations({ tag: 'wallet' })({
  getWallet: {
    scope: 'wallet:read',
    summary: 'Address, balances priced in USD, policy state',
    description:
      "The wallet of the key's account: its address and chain, balances and LP positions priced in USD at one block, and the spend policy's state today (caps, spent, left, pending confirmations).",
    answer: 'The wallet: address, balances priced in USD, LP positions and the policy’s state today',
    response: schemas.WalletView,
    problems: ['chain_unavailable'],
  },
  getPolicy: {
    scope: 'wallet:read',
    summary: 'The spend policy document',
    description: 'The spend policy document in force, with its version and when it was last replaced.',
    answer: 'The spend policy document with its version',
    response: schemas.PolicyView,
  },
  replacePolicy: {
    scope: 'admin',
    summary: 'Replace the spend policy (whole document)',
    description:
      'Replaces the whole spend policy document (no field may be missing or unknown). Caps are amounts in USD or in a listed token; a unit or a deny-rule token the chain does not list, or an amount over 10^12 of its unit, is 400 invalid_request. Answers the stored document with its new version.',
    body: schemas.PolicyRequest,
    answer: 'The stored policy with its new version',
    response: schemas.PolicyView,
  },
  submitIntent: {
    scope: 'wallet:act',
    summary: 'Act: 200 done, 202 needs_confirm, 409 policy_block, 422 intent_unresolved',
    description:
      'A sentence such as "swap 50 USDC for WETH", resolved on chain and gated by the spend policy: 200 when executed (with the transaction and its block), 202 when held above confirm_over until answered at /v1/confirm/{confirm_id} (409 conflict with `limit: held_per_account` when the account already has PRESENCE_MAX_HELD_PER_ACCOUNT waiting), 409 policy_block when a rule or a cap forbids it, 422 intent_unresolved when it cannot be read or done. A test key gets a would-be transaction (`simulated: true`).',
    body: schemas.IntentRequest,
    ...action,
  },
  withdraw: {
    scope: 'admin',
    summary: 'Send to an address on withdraw_allowlist (never available to the model)',
    description:
      "Sends an amount to an address on the policy's withdraw_allowlist (else 409 policy_block); the model can never call this. Answers like an intent: 200 executed or 202 held. An amount in a unit the chain does not list is 400 invalid_request.",
    body: schemas.WithdrawRequest,
    ...action,
  },
});

export const walletRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get('/v1/wallet', op.getWallet, async (req) => walletOf(core).view(callerOf(req)));

  app.get('/v1/wallet/policy', op.getPolicy, async (req) => core.policies.get(callerOf(req)));
  app.put('/v1/wallet/policy', op.replacePolicy, async (req) => core.policies.put(callerOf(req), req.body));

  app.post('/v1/wallet/intent', op.submitIntent, async (req, reply) =>
    sendIntentResult(
      reply,
      await walletOf(core).pipeline.submit({ caller: callerOf(req), text: req.body.do, source: 'api', idempotencyKey: idemKey(req) }),
    ),
  );

  app.post('/v1/wallet/withdraw', op.withdraw, async (req, reply) =>
    sendIntentResult(
      reply,
      await walletOf(core).pipeline.withdraw({
        caller: callerOf(req),
        to: req.body.to as Address,
        amount: req.body.amount,
        idempotencyKey: idemKey(req),
      }),
    ),
  );
};
