// /approve/:token: the page of a hold over passkey_over (Approve with passkey, Deny) and its
// steps. No key: the link's token is bound to one hold, and approving also needs one of the
// account's passkeys; denying stays one tap. The path is logged as its route pattern or
// redacted, never with the token.
import * as schemas from '@presence/protocol';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { operations } from '../http/operation';
import { PAGE_SCRIPT, webauthnBundle } from '../http/passkey-assets';
import { approvePage } from '../http/passkey-pages';
import type { RouteDeps } from '../http/types';
import { CONFIRM_PROBLEMS } from './confirm';
import { linkPage, linkPasskeys } from './enroll';

// No key: the link's token names the hold (openapi.ts documents such routes as needing no credential).
const op = operations({ tag: 'passkeys' })({
  passkeyApprovalOptions: {
    summary: 'The approve page: start approving the hold with a passkey (the link names the hold)',
    description:
      "The approve page's first step: WebAuthn authentication options for the hold named by the link, with a single-use challenge bound to that hold (a new request replaces an unanswered challenge).",
    params: schemas.PasskeyTokenParams,
    body: schemas.EmptyRequest.optional(),
    answer: 'Options for navigator.credentials.get (WebAuthn JSON), bound to this hold',
    response: schemas.PasskeyOptions,
    problems: ['not_found'],
  },
  passkeyApprove: {
    summary: "The approve page: the authenticator's answer; approves the hold once",
    description:
      "The approve page's second step: the authenticator's assertion, verified (challenge bound to the hold, origin, RP ID, user verification, counter), then the hold is approved through the same path as POST /v1/confirm (the policy checked again, executed once).",
    params: schemas.PasskeyTokenParams,
    body: schemas.PasskeyAssertion,
    answer: 'The hold was approved with a passkey and executed (as POST /v1/confirm answers)',
    response: schemas.ConfirmResult,
    problems: [...CONFIRM_PROBLEMS, 'passkey_refused'],
  },
  passkeyDeny: {
    summary: 'The approve page: deny the hold (one tap, no passkey)',
    description: 'Denies the hold named by the link: one tap, no passkey needed (as the Deny button in chat).',
    params: schemas.PasskeyTokenParams,
    body: schemas.EmptyRequest.optional(),
    answer: 'The hold was denied',
    response: schemas.ConfirmResult,
    problems: CONFIRM_PROBLEMS,
  },
});

const scriptFile = { schema: { hide: true, params: z.object({ file: z.enum(['webauthn.js', 'page.js']) }) } };

export const approveRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const passkeys = () => linkPasskeys(core);
  linkPage(app, 'approve', (token) => passkeys().approval(token), approvePage);
  app.post('/approve/:token/options', op.passkeyApprovalOptions, async (req) => passkeys().authenticationOptions(req.params.token));
  app.post('/approve/:token', op.passkeyApprove, async (req) => passkeys().approve(req.params.token, req.body));
  app.post('/approve/:token/deny', op.passkeyDeny, async (req) => passkeys().deny(req.params.token));
  app.get('/assets/passkeys/:file', scriptFile, async (req, reply) => {
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff');
    return req.params.file === 'page.js' ? PAGE_SCRIPT : webauthnBundle();
  });
};
