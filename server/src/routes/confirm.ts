// /v1/confirm: the actions held for the user's approval — list them, read one, approve or deny one.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { callerOf, type RouteDeps } from '../http/types';
import { walletOf } from './wallet';

/** What answering a hold can meet, whichever way it is answered (here, or on the approve page). */
export const CONFIRM_PROBLEMS = [
  'not_found',
  'confirm_expired',
  'confirm_resolved',
  'policy_block',
  'chain_reverted',
  'chain_rejected',
  'chain_unavailable',
] as const;

const op = operations({ tag: 'confirm' })({
  listConfirmations: {
    scope: 'wallet:read',
    summary: 'Held and resolved confirmations',
    description:
      "The newest confirmations of this key's kind (live or test), oldest first: `?limit` of them (default 50, at most 200); `?status=held` for those still waiting. Each carries its summary, amount, when it expires and, once executed, its transaction.",
    querystring: schemas.ConfirmQuery,
    answer: 'Confirmations of this key kind, oldest first',
    response: schemas.ConfirmationList,
    problems: ['chain_unavailable'],
  },
  getConfirmation: {
    scope: 'wallet:read',
    summary: 'One confirmation',
    description: 'Where one held action stands: still held, executing, executed (with its transaction), denied, expired or failed.',
    params: schemas.ConfirmParams,
    answer: 'The confirmation',
    response: schemas.ConfirmationView,
    problems: ['not_found', 'chain_unavailable'],
  },
  answerConfirmation: {
    scope: 'wallet:act',
    summary: 'Approve or deny a held action',
    description:
      '`approve: true` executes the held action (the policy and the daily cap are checked again now); `approve: false` drops it. The same answer again is idempotent; the other answer after it was resolved is 409 confirm_resolved, after it expired 409 confirm_expired.',
    params: schemas.ConfirmParams,
    body: schemas.ConfirmRequest,
    answer: 'The hold resolved: executed (with tx and block) or denied',
    response: schemas.ConfirmResult,
    problems: [...CONFIRM_PROBLEMS, 'passkey_required'],
  },
});

export const confirmRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get('/v1/confirm', op.listConfirmations, async (req) => ({
    confirmations: await walletOf(core).confirmations.list(callerOf(req), req.query),
  }));
  app.get('/v1/confirm/:confirm_id', op.getConfirmation, async (req) =>
    walletOf(core).confirmations.get(callerOf(req), req.params.confirm_id),
  );
  app.post('/v1/confirm/:confirm_id', op.answerConfirmation, async (req) =>
    walletOf(core).confirmations.answer(callerOf(req), req.params.confirm_id, req.body.approve),
  );
};
