// Builds the Fastify app: transport only. Validation and OpenAPI come from the protocol's zod
// schemas; what every route shares is a plugin of its own (plugins/: problems, closing, streams,
// auth, idempotency, OpenAPI), registered here in the order their hooks must run; then one
// plugin per URL prefix (routes/).
import type { Core } from '@presence/core';
import type { StoreInfo } from '@presence/protocol';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { capConnectionsPerAddress } from './http/address-connections';
import { clientErrorHandler, MAX_HEADER_SIZE } from './http/client-error';
import { registerCors } from './http/cors';
import { registerJsonBody } from './http/json-body';
import { errorHandler, MAX_PARAM_LENGTH } from './http/problem';
import { createReadiness } from './http/readiness';
import { REQUEST_ID_LOG_LABEL, registerRequestId, requestIdFor } from './http/request-id';
import { createSerializerCompiler } from './http/serializer';
import type { StreamCapLimits } from './http/stream-caps';
import { type TrustedProxy, trustedPeer, trustProxyOption } from './http/trusted-proxies';
import type { RouteDeps } from './http/types';
import { answerUnservedMethods } from './http/unserved-methods';
import { zodValidator } from './http/validation';
import { createMetrics, type Metrics } from './metrics/metrics';
import { authPlugin } from './plugins/auth';
import { closingPlugin } from './plugins/closing';
import { idempotencyPlugin } from './plugins/idempotency';
import { openapiPlugin } from './plugins/openapi';
import { problemsPlugin } from './plugins/problems';
import { requestMetricsPlugin } from './plugins/request-metrics';
import { streamsPlugin } from './plugins/streams';
import { approveRoutes } from './routes/approve';
import { chainRoutes } from './routes/chain';
import { confirmRoutes } from './routes/confirm';
import { enrollRoutes } from './routes/enroll';
import { eventsRoutes } from './routes/events';
import { keysRoutes } from './routes/keys';
import { linksRoutes } from './routes/links';
import { memoryRoutes } from './routes/memory';
import { messagesRoutes } from './routes/messages';
import { metaRoutes } from './routes/meta';
import { metricsRoutes } from './routes/metrics';
import { passkeysRoutes } from './routes/passkeys';
import { presenceRoutes } from './routes/presence';
import { standingRoutes } from './routes/standing';
import { surfaceRoutes } from './routes/surface';
import { walletRoutes } from './routes/wallet';
import { webhooksRoutes } from './routes/webhooks';

export const VERSION = '0.1.0';
export const BODY_LIMIT = 64 * 1024;
/** Node's default; a shorter request timeout shortens it too. */
const HEADERS_TIMEOUT_MS = 60_000;
/** A quarter of the timeout, within 100 ms and 15 s: a slow request is cut at most 25% late. */
const checkingInterval = (timeoutMs: number) => Math.min(15_000, Math.max(100, Math.floor(timeoutMs / 4)));

/** Every bound on what clients can hold open or try (config: PRESENCE_MAX_* and PRESENCE_AUTH_FAIL_LIMIT). */
export type Limits = {
  streams: StreamCapLimits;
  /** Failed authentications per client address over a sliding window. */
  authFailures: { limit: number; windowMs: number };
  /** Open connections; past it Node drops new ones, so sockets never take the store's descriptors. */
  maxConnections: number;
  /** Open connections per client address (trusted proxies not counted); past it, 429 and closed. */
  connectionsPerAddress: number;
  /** How long a request's headers and body may take to arrive; past it, 408 and closed. */
  requestTimeoutMs: number;
};

export type AppOptions = {
  core: Core;
  limits: Limits;
  logger?: FastifyServerOptions['logger'];
  /** How requests are logged (default: Fastify's two lines per request); give it requestIdLogLabel: REQUEST_ID_LOG_LABEL. */
  logController?: FastifyServerOptions['logController'];
  heartbeatMs?: number;
  chainHead?: () => Promise<{ id: number; block: number } | null>;
  /** What `/v1/health` says about the store (default: the embedded one). */
  store?: StoreInfo;
  /** Which server this is, for `/v1/health` (absent: not said). */
  server?: () => { id: string; leader: boolean };
  /** Check every answer against its zod schema (default: under tests, NODE_ENV=test). */
  validateResponses?: boolean;
  /**
   * Other servers share the store: besides the announced key changes (which close a revoked
   * key's streams at once), look at every open stream's key this often, a safety net against
   * notices lost unnoticed (0: never, the embedded default).
   */
  streamRecheckMs?: number;
  /** This app's metrics (default: a registry of its own, without process figures). Give the same one to createCore. */
  metrics?: Metrics;
  /** Set: GET /metrics needs `Authorization: Bearer <it>` (PRESENCE_METRICS_TOKEN). */
  metricsToken?: string | null;
  /** Origins that get CORS headers (PRESENCE_CORS_ORIGINS); none: no CORS. */
  corsOrigins?: readonly string[];
  /** Balancers whose X-Forwarded-For is believed (PRESENCE_TRUSTED_PROXIES); none: it is ignored. */
  trustedProxies?: readonly TrustedProxy[];
};

/** One plugin per URL prefix (routes/<prefix>.ts), in the order they are registered. */
const ROUTES = [
  metaRoutes,
  metricsRoutes,
  presenceRoutes,
  keysRoutes,
  memoryRoutes,
  eventsRoutes,
  walletRoutes,
  confirmRoutes,
  passkeysRoutes,
  enrollRoutes,
  approveRoutes,
  chainRoutes,
  messagesRoutes,
  standingRoutes,
  linksRoutes,
  surfaceRoutes,
  webhooksRoutes,
];

/** Fastify itself, with the bounds on what a connection may send and how long it may take. */
function createFastify({
  limits,
  logger,
  logController,
  trustedProxies,
}: Pick<AppOptions, 'limits' | 'logger' | 'logController'> & {
  trustedProxies: readonly TrustedProxy[];
}) {
  const app = Fastify({
    logger,
    // Our own checks on an incoming X-Request-Id (request-id.ts), so Fastify's header reading is off.
    requestIdHeader: false,
    genReqId: requestIdFor,
    // Log lines name the request as `request_id` (Fastify's default label is reqId).
    logController: logController ?? new LogController({ requestIdLogLabel: REQUEST_ID_LOG_LABEL }),
    bodyLimit: BODY_LIMIT,
    // 'idle': closing ends idle keep-alive connections at once, while in-flight requests finish
    // (event streams never finish by themselves; the streams plugin ends them first).
    forceCloseConnections: 'idle',
    // Fastify's own 503 while closing is a bare JSON body; ours (plugins/closing.ts) is a problem.
    return503OnClosing: false,
    // Node cuts a request whose headers and body have not all arrived in time (a 408 from
    // clientErrorHandler); it looks for them this often.
    requestTimeout: limits.requestTimeoutMs,
    http: { maxHeaderSize: MAX_HEADER_SIZE, connectionsCheckingInterval: checkingInterval(limits.requestTimeoutMs) },
    trustProxy: trustProxyOption(trustedProxies),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // The router's own refusals (a malformed %-escape, an overlong path segment) and the
    // parser's (oversized headers, a header timeout, not HTTP) are problems like any other.
    frameworkErrors: (err, request, reply) => errorHandler(err, request, reply),
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.server.maxConnections = limits.maxConnections;
  app.server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs);
  capConnectionsPerAddress(app.server, limits.connectionsPerAddress, trustedPeer(trustedProxies));
  answerUnservedMethods(app.server);
  return app;
}

/** What `/v1/health` answers: a chain that does not answer is `chain: null`, never a failure. */
function healthOf({ chainHead, store, server }: Required<Pick<AppOptions, 'chainHead' | 'store'>> & Pick<AppOptions, 'server'>) {
  return async () => {
    let chain: { id: number; block: number } | null = null;
    try {
      chain = await chainHead();
    } catch {
      chain = null;
    }
    return { ok: true, version: VERSION, chain, store, server: server?.() };
  };
}

export async function buildApp({
  core,
  limits,
  logger = false,
  logController,
  heartbeatMs = 15_000,
  chainHead = async () => null,
  store = { kind: 'lowdb' },
  server,
  // Read as a plain string: some bundler typings narrow NODE_ENV to development|production.
  validateResponses = (process.env.NODE_ENV as string | undefined) === 'test',
  streamRecheckMs = 0,
  metrics = createMetrics(),
  metricsToken = null,
  corsOrigins = [],
  trustedProxies = [],
}: AppOptions) {
  const app = createFastify({ limits, logger, logController, trustedProxies });
  // Fastify hands a request without a body to the body's validator as null; an optional body
  // (POST /v1/links, the passkey pages' steps) means absent, which zod spells undefined, so a
  // bare `curl -X POST` is not a 400. Refusals are worded for people (http/issue-messages.ts).
  app.setValidatorCompiler<z.ZodType>(zodValidator);
  app.setSerializerCompiler(createSerializerCompiler({ validate: validateResponses }));
  await app.register(problemsPlugin);
  // JSON only: a text/plain body is a 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);
  // The onRequest hooks run in the order registered: request id, CORS, closing, auth.
  registerRequestId(app);
  await app.register(requestMetricsPlugin, { core, metrics });
  await registerCors(app, corsOrigins);
  await app.register(closingPlugin);
  await app.register(streamsPlugin, { core, limits: limits.streams, metrics, recheckMs: streamRecheckMs });
  await app.register(authPlugin, { core, authFailures: limits.authFailures });
  await app.register(idempotencyPlugin, { core });
  await app.register(openapiPlugin, { version: VERSION, metricsToken });
  const deps: RouteDeps = {
    core,
    streams: app.streams,
    streamCaps: app.streamCaps,
    heartbeatMs,
    health: healthOf({ chainHead, store, server }),
    ready: createReadiness(core),
    metrics: { contentType: metrics.registry.contentType, scrape: () => metrics.registry.metrics() },
    metricsToken,
  };
  for (const routes of ROUTES) await app.register(routes, deps);
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
