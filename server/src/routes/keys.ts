// API key management: list, create, rotate with grace, revoke at once. What a test key may
// do with keys is the key service's to decide.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { callerOf, type RouteDeps } from '../http/types';

const op = operations({ tag: 'keys', scope: 'admin' })({
  listKeys: {
    summary: 'List keys (never secrets)',
    description:
      'Every key of the account: id, kind, name, scopes, last four characters, state, when created and last used, and any rotation grace. Never a secret.',
    answer: 'Every key of the account (prefix, last four, scopes, state), never a secret',
    response: schemas.KeyList,
  },
  createKey: {
    summary: 'Create a key; the secret is shown once',
    description:
      'A new key of the account with the given kind and scopes (at least one, none repeated). The secret is in this answer only (and in a replay with the same Idempotency-Key).',
    body: schemas.CreateKeyRequest,
    status: 201,
    answer: 'The new key with its secret, shown this once',
    response: schemas.KeySecret,
    problems: ['conflict'],
  },
  rotateKey: {
    summary: 'Rotate: a new secret now, the old one valid until grace_until',
    description:
      'Issues a new secret for the key; the old one keeps working until `grace_until` (`grace_s`, default 900 s, at most 86400; 0 ends it now). Streams opened with the old secret close when it stops working.',
    params: schemas.KeyIdParams,
    body: schemas.RotateKeyRequest.optional(),
    answer: 'The new secret (shown this once); the old one works until grace_until',
    response: schemas.KeySecret,
    problems: ['not_found', 'conflict'],
  },
  revokeOwnKey: {
    scope: 'key',
    summary: 'Revoke the key making this call (any key may retire itself, e.g. a bot on /unlink)',
    description:
      'Revokes the key that makes this call, at once, with no admin scope needed: a surface unlinking itself, or a key retiring itself.',
    answer: 'The calling key, now revoked',
    response: schemas.KeyView,
  },
  revokeKey: {
    summary: 'Revoke at once; open streams of this key close',
    description: 'Revokes the key at once: its next request is 401, and its open event streams close.',
    params: schemas.KeyIdParams,
    answer: 'The key, now revoked',
    response: schemas.KeyView,
    problems: ['not_found'],
  },
});

export const keysRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  app.get('/v1/keys', op.listKeys, async (req) => ({ keys: await core.keys.list(callerOf(req).accountId) }));

  app.post('/v1/keys', op.createKey, async (req, reply) => reply.code(201).send(await core.keys.issue(callerOf(req), req.body)));

  app.post('/v1/keys/:id/rotate', op.rotateKey, async (req) => core.keys.rotate(callerOf(req), req.params.id, req.body?.grace_s ?? 900));

  app.delete('/v1/keys/self', op.revokeOwnKey, async (req) => core.keys.revoke(callerOf(req), callerOf(req).keyId));

  app.delete('/v1/keys/:id', op.revokeKey, async (req) => core.keys.revoke(callerOf(req), req.params.id));
};
