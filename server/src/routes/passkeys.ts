// /v1/passkeys: the account's passkeys — a one-time link that adds one (its page is served by
// routes/enroll.ts), the list, and removing one.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { served } from '../http/served';
import { callerOf, type RouteDeps } from '../http/types';

const op = operations({ tag: 'passkeys', scope: 'admin' })({
  createPasskeyEnrollLink: {
    summary: 'Make a one-time link that adds a passkey to this account',
    description:
      "Makes a one-time link (valid 10 minutes, at most 10 open per account) to a page where the user's device adds a passkey to this account. Open it on the device that will approve.",
    body: schemas.EnrollLinkRequest.optional(),
    status: 201,
    answer: 'The one-time link to the Add passkey page (10 minutes)',
    response: schemas.EnrollLink,
    problems: ['conflict'],
  },
  listPasskeys: {
    scope: 'wallet:read',
    summary: 'List the passkeys that approve holds above passkey_over',
    description: 'The passkeys registered to this account: their ids, names, when each was added and last used.',
    answer: "The account's passkeys, oldest first",
    response: schemas.PasskeyList,
  },
  deletePasskey: {
    summary: 'Remove a passkey (not the last one while the policy sets passkey_over)',
    description:
      'Removes a passkey. The last one cannot be removed while the policy sets passkey_over (409 conflict): lower or remove passkey_over first.',
    params: schemas.PasskeyParams,
    status: 204,
    answer: 'Removed',
    problems: ['not_found', 'conflict'],
  },
});

export const passkeysRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const passkeys = () => served(core.passkeys, 'unavailable', 'this server keeps no passkeys');
  app.post('/v1/passkeys/enroll', op.createPasskeyEnrollLink, async (req, reply) =>
    reply.code(201).send(await passkeys().enrollLink(callerOf(req), req.body?.name)),
  );
  app.get('/v1/passkeys', op.listPasskeys, async (req) => ({ passkeys: await passkeys().list(callerOf(req)) }));
  app.delete('/v1/passkeys/:id', op.deletePasskey, async (req, reply) => {
    await passkeys().remove(callerOf(req), req.params.id);
    return reply.code(204).send();
  });
};
