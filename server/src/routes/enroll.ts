// /enroll/:token: the Add passkey page of a one-time enroll link, and its two steps (options,
// then the authenticator's answer). No key: the link's token is the credential, so the path
// is logged as its route pattern or redacted, never with the token.
import * as schemas from '@presence/protocol';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operations } from '../http/operation';
import { enrollPage, unknownLinkPage } from '../http/passkey-pages';
import { served } from '../http/served';
import type { RouteDeps } from '../http/types';

// No key: the link's token is the credential (openapi.ts documents such routes as needing none).
const op = operations({ tag: 'passkeys' })({
  passkeyRegistrationOptions: {
    summary: 'The Add passkey page: start adding a passkey (the link is the credential)',
    description:
      "The Add passkey page's first step: WebAuthn registration options for this account, bound to the one-time link (its challenge is single-use).",
    params: schemas.PasskeyTokenParams,
    body: schemas.EmptyRequest.optional(),
    answer: 'Options for navigator.credentials.create (WebAuthn JSON)',
    response: schemas.PasskeyOptions,
    problems: ['not_found', 'conflict'],
  },
  passkeyRegister: {
    summary: "The Add passkey page: the authenticator's answer",
    description:
      "The Add passkey page's second step: the authenticator's attestation, verified (challenge, origin, RP ID, user verification); the link is spent and the passkey stored.",
    params: schemas.PasskeyTokenParams,
    body: schemas.PasskeyRegistration,
    status: 201,
    answer: 'The passkey was added; the link is spent',
    response: schemas.PasskeyAdded,
    problems: ['not_found', 'conflict', 'passkey_refused'],
  },
});

/** What a link's pages reach: on a server that keeps no passkeys, no link is known (404, as an unknown one). */
export const linkPasskeys = (core: RouteDeps['core']) => served(core.passkeys, 'not_found', 'this server keeps no passkeys');

/**
 * GET /<kind>/:token: a link's page itself (HTML, outside the OpenAPI document), rendered from
 * what the token names, or the "link not valid" page when it names nothing. A person opens it
 * in a browser, so it answers HTML whatever the URL: a token of the wrong shape (a link cut
 * short in a message, mistyped) gets the "link not valid" page too, not a problem+json. The
 * page reads nothing from the query, so a query is ignored: a messenger or mail client adds its
 * own (`?utm_source=…`, `?fbclid=…`), and refusing those would leave the link unopenable.
 */
export function linkPage<T>(
  app: Parameters<FastifyPluginAsyncZod>[0],
  kind: 'enroll' | 'approve',
  load: (token: string) => Promise<T | null>,
  render: (reply: FastifyReply, view: T) => string,
) {
  app.get(`/${kind}/:token`, { schema: { hide: true } }, async (req, reply) => {
    const link = schemas.PasskeyTokenParams.safeParse(req.params);
    const view = link.success ? await load(link.data.token) : null;
    return view ? render(reply, view) : unknownLinkPage(reply, kind);
  });
}

export const enrollRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { core }) => {
  const passkeys = () => linkPasskeys(core);
  linkPage(app, 'enroll', (token) => passkeys().enrollState(token), enrollPage);
  app.post('/enroll/:token/options', op.passkeyRegistrationOptions, async (req) => passkeys().registrationOptions(req.params.token));
  app.post('/enroll/:token', op.passkeyRegister, async (req, reply) =>
    reply.code(201).send({ passkey: await passkeys().register(req.params.token, req.body) }),
  );
};
