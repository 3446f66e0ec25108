// /enroll/:token: the Add passkey page of a one-time enroll link, and its two steps (options,
// then the authenticator's answer). No key: the link's token is the credential, so the path
// is logged as its route pattern or redacted, never with the token.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { enrollPage, unknownLinkPage } from '../http/passkey-pages';
import { served } from '../http/served';
import type { RouteDeps } from '../http/types';

export const enrollRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const passkeys = () => served(core.passkeys, 'not_found', 'this server keeps no passkeys');
  app.get('/enroll/:token', { schema: { hide: true, params: schemas.PasskeyTokenParams } }, async (req, reply) => {
    const state = await passkeys().enrollState(req.params.token);
    return state ? enrollPage(reply, state) : unknownLinkPage(reply, 'enroll');
  });
  app.post(
    '/enroll/:token/options',
    {
      schema: {
        operationId: 'passkeyRegistrationOptions',
        openapi: { answers: { 200: 'Options for navigator.credentials.create (WebAuthn JSON)' }, problems: ['not_found', 'conflict'] },
        summary: 'The Add passkey page: start adding a passkey (the link is the credential)',
        description:
          "The Add passkey page's first step: WebAuthn registration options for this account, bound to the one-time link (its challenge is single-use).",
        tags: ['passkeys'],
        security: [],
        params: schemas.PasskeyTokenParams,
        body: schemas.EmptyRequest.optional(),
        response: { 200: schemas.PasskeyOptions },
      },
    },
    async (req) => passkeys().registrationOptions(req.params.token),
  );
  app.post(
    '/enroll/:token',
    {
      schema: {
        operationId: 'passkeyRegister',
        openapi: { answers: { 201: 'The passkey was added; the link is spent' }, problems: ['not_found', 'conflict', 'passkey_refused'] },
        summary: "The Add passkey page: the authenticator's answer",
        description:
          "The Add passkey page's second step: the authenticator's attestation, verified (challenge, origin, RP ID, user verification); the link is spent and the passkey stored.",
        tags: ['passkeys'],
        security: [],
        params: schemas.PasskeyTokenParams,
        body: schemas.PasskeyRegistration,
        response: { 201: schemas.PasskeyAdded },
      },
    },
    async (req, reply) => reply.code(201).send({ passkey: await passkeys().register(req.params.token, req.body) }),
  );
};
