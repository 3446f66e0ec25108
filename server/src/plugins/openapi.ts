// The OpenAPI 3.1 document, generated from the routes' zod schemas by @fastify/swagger:
// the API's title and security schemes here, each operation's details from what its route
// declares in `schema.openapi` (http/openapi.ts). Wrapped with fastify-plugin: swagger's
// onRoute hook must hear every route the app adds after it.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createOpenapiTransform } from '../http/openapi';
import { createDocumentTransform } from '../http/openapi-document';

export type OpenapiOptions = {
  version: string;
  /** Set: /metrics is documented with its own bearer scheme. */
  metricsToken: string | null;
};

async function openapi(app: FastifyInstance, { version, metricsToken }: OpenapiOptions) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Presence API',
        version,
        description: 'One persistent on-chain assistant per account. Errors are application/problem+json.',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'The operator of this Presence server' },
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'prs_live_… or prs_test_…; or a surface token prs_surface_… on /v1/surface routes, to redeem link codes, or with Presence-Acting-For: key_… naming a key it linked',
          },
          surfaceToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              "prs_surface_… (presence-server surfaces create): a surface's own routes, redeeming link codes, and with Presence-Acting-For any keyed route",
          },
          ...(metricsToken ? { metricsToken: { type: 'http', scheme: 'bearer', description: 'PRESENCE_METRICS_TOKEN' } } : {}),
        },
      },
      security: [{ bearer: [] }],
    },
    transform: createOpenapiTransform({ metricsSecurity: metricsToken ? [{ metricsToken: [] }] : [] }) as never,
    transformObject: createDocumentTransform({
      // Paths start at the root (/v1/…, /metrics): the server is the host the document came from.
      servers: [{ url: '/', description: 'The server that served this document' }],
    }) as never,
  });
}

export const openapiPlugin = fp(openapi, { name: 'presence-openapi' });
