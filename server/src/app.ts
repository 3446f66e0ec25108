// Builds the Fastify app: transport only. Validation and OpenAPI come from the protocol's zod
// schemas; auth, rate limits and idempotency are hooks; every failure is problem+json.
import swagger from '@fastify/swagger';
import { type Core, PresenceError } from '@presence/core';
import type { StoreInfo } from '@presence/protocol';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { capConnectionsPerAddress } from './http/address-connections';
import { registerAuth } from './http/auth';
import { clientErrorHandler, MAX_HEADER_SIZE } from './http/client-error';
import { registerCors } from './http/cors';
import { registerIdempotency } from './http/idempotency';
import { registerJsonBody } from './http/json-body';
import { createOpenapiTransform } from './http/openapi';
import { createDocumentTransform } from './http/openapi-document';
import { errorHandler, MAX_PARAM_LENGTH } from './http/problem';
import { createReadiness } from './http/readiness';
import { REQUEST_ID_LOG_LABEL, registerRequestId, requestIdFor } from './http/request-id';
import { registerRouteTable } from './http/route-table';
import { createSerializerCompiler } from './http/serializer';
import { createStreamCaps, type StreamCapLimits } from './http/stream-caps';
import { startStreamRecheck } from './http/stream-recheck';
import { createStreamRegistry } from './http/stream-registry';
import { type TrustedProxy, trustedPeer, trustProxyOption } from './http/trusted-proxies';
import type { RouteDeps } from './http/types';
import { answerUnservedMethods } from './http/unserved-methods';
import { createMetrics, type Metrics } from './metrics/metrics';
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
  const app = Fastify({
    logger,
    // Our own checks on an incoming X-Request-Id (request-id.ts), so Fastify's header reading is off.
    requestIdHeader: false,
    genReqId: requestIdFor,
    // Log lines name the request as `request_id` (Fastify's default label is reqId).
    logController: logController ?? new LogController({ requestIdLogLabel: REQUEST_ID_LOG_LABEL }),
    bodyLimit: BODY_LIMIT,
    // 'idle': closing ends idle keep-alive connections at once, while in-flight requests finish
    // (event streams never finish by themselves; preClose below ends them first).
    forceCloseConnections: 'idle',
    // Fastify's own 503 while closing is a bare JSON body; ours (the hook below) is a problem.
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
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(createSerializerCompiler({ validate: validateResponses }));
  app.setErrorHandler(errorHandler);
  const routeTable = registerRouteTable(app);
  app.setNotFoundHandler((req, reply) => {
    // A path a route has, asked with a method it lacks: 405 naming the methods it has.
    const route = routeTable.match(req.url.split('?', 1)[0] as string);
    if (route) {
      reply.header('allow', route.methods.join(', '));
      return errorHandler(new PresenceError('method_not_allowed', `${req.method} is not served on ${route.pattern}`), req, reply);
    }
    // Never the URL: it may carry a credential (a link code sent to the wrong path).
    return errorHandler(
      new PresenceError('not_found', `no such route for ${req.method} (the routes are listed in the OpenAPI document)`),
      req,
      reply,
    );
  });
  // JSON only: a text/plain body is a 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);

  registerRequestId(app);
  let closing = false;
  // Every answer timed by its route's pattern (a 404 has none: `unmatched`), streams until they
  // close. And: Node closes idle keep-alive connections once, when closing starts; one whose
  // in-flight request finishes later would idle until its keep-alive timeout and hold the
  // close up. (onResponse runs when the response has finished, as a 'finish' listener would,
  // without adding one to every response.)
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
  await registerCors(app, corsOrigins);

  const streams = createStreamRegistry({ now: () => core.clock.now() });
  const stopRevokeListener = core.keys.onRevoke((keyId) => streams.closeKey(keyId));
  const stopRotateListener = core.keys.onRotate((retired) => streams.retire(retired));
  const stopRecheck = startStreamRecheck({
    core,
    streams,
    everyMs: streamRecheckMs,
    onError: (err) => app.log.warn({ err }, 'stream key re-check failed'),
  });
  // Event streams never end by themselves: close them first, so that closing the server
  // waits only for ordinary in-flight requests.
  app.addHook('preClose', async () => {
    closing = true;
    stopRevokeListener();
    stopRotateListener();
    stopRecheck();
    streams.closeAll();
  });
  // A request that still reaches a closing server (pipelined, or on a keep-alive connection
  // busy when closing began) is shed before any work: 503 `unavailable`, and Fastify adds
  // `Connection: close`, so the client's retry goes to a server that is staying up.
  // (A callback hook: an async one costs every request a promise and a microtask turn.)
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) done(new PresenceError('unavailable', 'this server is shutting down; retry the request', { retryAfter: 1 }));
    else done();
  });

  registerAuth(app, core, core.failureBudgetFor('auth-failures', limits.authFailures));
  registerIdempotency(app, core);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Presence API',
        version: VERSION,
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

  const health = async () => {
    let chain: { id: number; block: number } | null = null;
    try {
      chain = await chainHead();
    } catch {
      chain = null;
    }
    return { ok: true, version: VERSION, chain, store, server: server?.() };
  };
  const streamCaps = createStreamCaps(limits.streams);
  metrics.countStreams(
    () => streamCaps.open,
    () => limits.streams.total,
  );
  const dispatcher = core.webhooks?.dispatcher;
  if (dispatcher) metrics.countWebhookBacklog(() => dispatcher.backlog(10));
  const deps: RouteDeps = {
    core,
    streams,
    streamCaps,
    heartbeatMs,
    health,
    ready: createReadiness(core),
    metrics: { contentType: metrics.registry.contentType, scrape: () => metrics.registry.metrics() },
    metricsToken,
  };
  // One plugin per URL prefix (routes/<prefix>.ts).
  for (const routes of [
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
  ]) {
    await app.register(routes, deps);
  }
  return app;
}

export type App = Awaited<ReturnType<typeof buildApp>>;
