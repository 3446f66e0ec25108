// API key management: list, create, rotate with grace, revoke at once.
import { PresenceError } from '@presence/core';
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RouteDeps } from '../app';

export const keysRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const tags = ['keys'];
  app.get(
    '/v1/keys',
    { config: { scope: 'admin' }, schema: { summary: 'List keys (never secrets)', tags, response: { 200: schemas.KeyList } } },
    async (req) => ({ keys: await core.keys.list(req.principal!.accountId) }),
  );

  app.post(
    '/v1/keys',
    {
      config: { scope: 'admin' },
      schema: {
        summary: 'Create a key; the secret is shown once',
        tags,
        body: schemas.CreateKeyRequest,
        response: { 201: schemas.KeySecret },
      },
    },
    async (req, reply) => {
      const p = req.principal!;
      if (p.kind === 'test') {
        // Test keys simulate writes: the would-be key is answered, nothing is stored.
        return reply.code(201).send({
          id: 'key_0000000000000000',
          kind: req.body.kind,
          name: req.body.name,
          scopes: req.body.scopes,
          last4: '0000',
          state: 'active',
          created_at: new Date(core.clock.now()).toISOString(),
          last_used_at: null,
          grace_until: null,
          secret: `prs_${req.body.kind}_${'0'.repeat(40)}`,
        });
      }
      return reply.code(201).send(await core.keys.create(p.accountId, req.body));
    },
  );

  app.post(
    '/v1/keys/:id/rotate',
    {
      config: { scope: 'admin' },
      schema: {
        summary: 'Rotate: a new secret now, the old one valid until grace_until',
        tags,
        params: schemas.KeyIdParams,
        body: schemas.RotateKeyRequest.optional(),
        response: { 200: schemas.KeySecret },
      },
    },
    async (req) => {
      const p = req.principal!;
      const grace = req.body?.grace_s ?? 900;
      if (p.kind === 'test') throw testKeyCannot('rotate keys');
      return core.keys.rotate(p.accountId, req.params.id, grace);
    },
  );

  app.delete(
    '/v1/keys/self',
    {
      config: { scope: 'key' },
      schema: {
        summary: 'Revoke the key making this call (any key may retire itself, e.g. a bot on /unlink)',
        tags,
        response: { 200: schemas.KeyView },
      },
    },
    async (req) => {
      const p = req.principal!;
      if (p.kind === 'test') throw testKeyCannot('revoke keys');
      return core.keys.revoke(p.accountId, p.keyId);
    },
  );

  app.delete(
    '/v1/keys/:id',
    {
      config: { scope: 'admin' },
      schema: {
        summary: 'Revoke at once; open streams of this key close',
        tags,
        params: schemas.KeyIdParams,
        response: { 200: schemas.KeyView },
      },
    },
    async (req) => {
      const p = req.principal!;
      if (p.kind === 'test') throw testKeyCannot('revoke keys');
      return core.keys.revoke(p.accountId, req.params.id);
    },
  );
};

const testKeyCannot = (what: string) =>
  new PresenceError('scope', `test keys cannot ${what}: key management changes real credentials; use a live admin key`);
