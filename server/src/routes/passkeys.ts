// /v1/passkeys: the account's passkeys — a one-time link that adds one (its page is served by
// routes/enroll.ts), the list, and removing one.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operation } from '../http/operation';
import { served } from '../http/served';
import { callerOf, type RouteDeps } from '../http/types';

const createPasskeyEnrollLink = operation({
  config: { scope: 'admin' },
  schema: {
    operationId: 'createPasskeyEnrollLink',
    openapi: { answers: { 201: 'The one-time link to the Add passkey page (10 minutes)' }, problems: ['conflict'] },
    summary: 'Make a one-time link that adds a passkey to this account',
    description:
      "Makes a one-time link (valid 10 minutes, at most 10 open per account) to a page where the user's device adds a passkey to this account. Open it on the device that will approve.",
    tags: ['passkeys'],
    body: schemas.EnrollLinkRequest.optional(),
    response: { 201: schemas.EnrollLink },
  },
});

const listPasskeys = operation({
  config: { scope: 'wallet:read' },
  schema: {
    operationId: 'listPasskeys',
    openapi: { answers: { 200: "The account's passkeys, oldest first" } },
    summary: 'List the passkeys that approve holds above passkey_over',
    description: 'The passkeys registered to this account: their ids, names, when each was added and last used.',
    tags: ['passkeys'],
    response: { 200: schemas.PasskeyList },
  },
});

const deletePasskey = operation({
  config: { scope: 'admin' },
  schema: {
    operationId: 'deletePasskey',
    openapi: { answers: { 204: 'Removed' }, problems: ['not_found', 'conflict'] },
    summary: 'Remove a passkey (not the last one while the policy sets passkey_over)',
    description:
      'Removes a passkey. The last one cannot be removed while the policy sets passkey_over (409 conflict): lower or remove passkey_over first.',
    tags: ['passkeys'],
    params: schemas.PasskeyParams,
  },
});

export const passkeysRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const passkeys = () => served(core.passkeys, 'unavailable', 'this server keeps no passkeys');
  app.post('/v1/passkeys/enroll', createPasskeyEnrollLink, async (req, reply) =>
    reply.code(201).send(await passkeys().enrollLink(callerOf(req), req.body?.name)),
  );
  app.get('/v1/passkeys', listPasskeys, async (req) => ({ passkeys: await passkeys().list(callerOf(req)) }));
  app.delete('/v1/passkeys/:id', deletePasskey, async (req, reply) => {
    await passkeys().remove(callerOf(req), req.params.id);
    return reply.code(204).send();
  });
};
