// Starts a complete Presence server from a Config: data-dir lock, store, core, first-start
// bootstrap, HTTP listener and periodic upkeep. `close()` stops everything in order.
import { join } from 'node:path';
import {
  type ChainRuntime,
  type Clock,
  type Core,
  chain as chainLayer,
  createCore,
  createKeystore,
  loadOrCreateMasterKey,
  makeTreePrivate,
  systemClock,
} from '@presence/core';
import { createAiPlanner } from '@presence/core/ai';
import { createPostgresCluster, createPostgresOverlayShare } from '@presence/core/postgres';
import { createViemChain } from '@presence/core/viem';
import type { FastifyServerOptions } from 'fastify';
import { buildApp } from './app';
import { startBackgroundWork } from './background-work';
import { bootstrapKeysFile } from './bootstrap-keys';
import { type ClusterRuntime, openCluster } from './cluster-runtime';
import type { Config } from './config';
import { takeDataDirLock } from './data-dir-lock';
import { type DevnetPackage, loadDevnet } from './load-devnet';
import { type LogFormat, type LogStream, productionLogging } from './logger';
import { checkMasterKey } from './master-key';
import { meteredChain, meteredStore } from './metrics/metered-ports';
import { createMetrics } from './metrics/metrics';
import { databaseFailure, openStore } from './open-store';
import { openSurfaceStore } from './open-surfaces';

export type RunningServer = {
  url: string;
  core: Core;
  /** This server's id and its part in the deployment (leader or not). */
  cluster: Pick<ClusterRuntime, 'serverId' | 'isLeader' | 'shared'>;
  /**
   * The bootstrap keys, on the first start that listens after they were created (or, after a
   * crash, completed): the caller shows them, once. Null on every other start.
   */
  bootstrap: { account: string; live: string; test: string } | null;
  close(): Promise<void>;
};

export type StartOptions = {
  config: Config;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  /** Where the production logger writes (default stdout); ignored when `logger` is given. */
  logStream?: LogStream;
  /** The production logger's format (default: PRESENCE_LOG_FORMAT, else JSON); ignored when `logger` is given. */
  logFormat?: LogFormat;
  heartbeatMs?: number;
  /** Upkeep period (retention, compactor); tests drive upkeep by hand with 0. */
  maintenanceMs?: number;
  /** Period of the short beat (hold expiry, standing intents); 0 leaves it to the caller (tests drive `core.tick()`). */
  standingMs?: number;
  /** false runs without any chain (wallet routes answer chain_unavailable): platform tests. */
  chain?: boolean;
  /** Called with progress lines while the chain starts (the devnet can take a few seconds). */
  progress?: (line: string) => void;
};

const RPC_TIMEOUT_MS = 5_000;
const STANDING_DRAIN_MS = 5_000;
const HEALTH_CHAIN_TIMEOUT_MS = 1_000;
/** With other servers on the database: how often open streams' keys are looked up again. */
const STREAM_RECHECK_MS = 1_000;

/** A record in flight this long is stranded even while other servers run (see recoverAsLeader). */
const CLUSTER_STRANDED_MS = 120_000;

/**
 * The embedded devnet; a shared devnet at PRESENCE_RPC_URL (deployed once, recorded for every
 * server); or a real network from PRESENCE_RPC_URL + PRESENCE_TOKEN_LIST.
 */
async function startChain(
  config: Config,
  devnetPackage: DevnetPackage | null,
  cluster: ClusterRuntime,
  progress: (line: string) => void,
): Promise<{ runtime: ChainRuntime; stop(): Promise<void> }> {
  if (devnetPackage && config.PRESENCE_RPC_URL) {
    progress(`attaching to the shared devnet at ${new URL(config.PRESENCE_RPC_URL).host}…`);
    const devnet = await devnetPackage.attachDevnet({
      rpcUrl: config.PRESENCE_RPC_URL,
      book: cluster.book ?? devnetPackage.fileDeploymentBook(join(config.PRESENCE_DATA_DIR, 'devnet', 'attached-deployment.json')),
      locks: cluster.locks,
      log: progress,
    });
    const tokenList = chainLayer.parseTokenList(devnet.deployment);
    const chain = createViemChain({ rpcUrl: devnet.rpcUrl, tokenList, timeoutMs: RPC_TIMEOUT_MS });
    return { runtime: { chain, tokenList, fund: (a) => devnet.fund(a) }, stop: () => devnet.stop() };
  }
  if (devnetPackage) {
    const { startDevnet } = devnetPackage;
    progress('starting the embedded devnet (anvil + Uniswap V2)…');
    const devnet = await startDevnet({ dataDir: config.PRESENCE_DATA_DIR });
    progress(`devnet ready (${devnet.started.reused ? 'state restored' : 'freshly deployed'}) in ${devnet.started.ms} ms`);
    try {
      // Its deployment is a token list like any network's, held to the same rules.
      const tokenList = chainLayer.parseTokenList(devnet.deployment);
      const chain = createViemChain({ rpcUrl: devnet.rpcUrl, tokenList, timeoutMs: RPC_TIMEOUT_MS });
      return { runtime: { chain, tokenList, fund: (a) => devnet.fund(a) }, stop: () => devnet.stop() };
    } catch (e) {
      await devnet.stop();
      throw e;
    }
  }
  if (!config.PRESENCE_TOKEN_LIST) throw new Error(`PRESENCE_TOKEN_LIST is required with PRESENCE_CHAIN=${config.PRESENCE_CHAIN}`);
  const tokenList = await chainLayer.loadTokenList(config.PRESENCE_TOKEN_LIST);
  const chain = createViemChain({ rpcUrl: config.PRESENCE_RPC_URL as string, tokenList, timeoutMs: RPC_TIMEOUT_MS });
  return { runtime: { chain, tokenList }, stop: async () => undefined };
}

export async function startServer({
  config,
  clock = systemClock,
  logger,
  logStream,
  logFormat = config.PRESENCE_LOG_FORMAT ?? 'json',
  heartbeatMs,
  maintenanceMs = 60_000,
  standingMs = 1_000,
  chain: withChain = true,
  progress = () => undefined,
}: StartOptions): Promise<RunningServer> {
  // Before anything is touched: an install without the devnet fails in one line, data directory untouched.
  const devnetPackage = withChain && config.PRESENCE_CHAIN === 'devnet' ? await loadDevnet() : null;
  const dataDir = config.PRESENCE_DATA_DIR;
  const unlock = takeDataDirLock(dataDir);
  const cleanups: (() => Promise<void> | void)[] = [unlock];
  const close = async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  };
  try {
    // Everything kept is private (0700 directories, 0600 files); a tree written by an earlier
    // version is fixed here, before anything is read or served.
    const madePrivate = makeTreePrivate(dataDir);
    if (madePrivate > 0) progress(`made ${madePrivate} entries of ${dataDir} private (directories 0700, files 0600)`);
    const keystore = createKeystore(loadOrCreateMasterKey({ configured: config.PRESENCE_MASTER_KEY, dataDir }));
    // With a database, the data directory still keeps what is not in the store: the devnet's
    // state, the bootstrap keys file and the pid lock.
    const metrics = createMetrics({ process: true });
    const opened = await openStore(config, keystore);
    const storeInfo = opened.info;
    const database = opened.database;
    // The pool ends last (cleanups run in reverse): after the store, the cluster messaging,
    // the locks and leadership that run on it, so what they still have in flight completes.
    if (database) cleanups.push(() => database.end({ timeout: 5 }));
    cleanups.push(() => opened.store.close());
    await checkMasterKey(config, keystore, opened.store);
    // Core works on timed ports: store writes and chain calls show on /metrics.
    const store = meteredStore(opened.store, metrics);
    if (storeInfo.kind === 'postgres') progress(`store: PostgreSQL, schema version ${storeInfo.schema}`);
    const surfaces = await openSurfaceStore(config, opened.store, opened.database);
    cleanups.push(() => surfaces.close());
    // Several servers may share the database: events, rate limits and key changes travel
    // between them through it (LISTEN/NOTIFY and shared tables); locks, leadership and the
    // shared devnet's record go through it too (cluster-runtime.ts).
    const messaging = database
      ? await createPostgresCluster({
          sql: database,
          clock,
          onError: (err) => console.error('presence: cluster read failed:', err instanceof Error ? err.message : err),
        }).catch((e: unknown) => {
          throw databaseFailure(config.PRESENCE_DATABASE_URL as string, e);
        })
      : null;
    if (messaging) cleanups.push(() => messaging.close());
    // Test keys' overlay, shared through the database so any server answers a test key's reads.
    const overlayShare = database ? createPostgresOverlayShare({ sql: database }) : null;
    if (overlayShare) cleanups.push(() => overlayShare.close());
    const cluster = await openCluster(config, database, progress);
    cleanups.push(() => cluster.close());
    // Every series names its server, so a deployment's scrapes add up without clashing.
    metrics.registry.setDefaultLabels({ server: cluster.serverId });
    if (cluster.shared) progress(`server ${cluster.serverId}: ${cluster.isLeader() ? 'leader' : 'follower'} of the background work`);
    let chain: Awaited<ReturnType<typeof startChain>> | null = null;
    if (withChain) {
      const started = await startChain(config, devnetPackage, cluster, progress);
      chain = { ...started, runtime: { ...started.runtime, chain: meteredChain(started.runtime.chain, metrics) } };
      cleanups.push(() => chain?.stop());
    }
    const core = createCore({
      store,
      clock,
      rateLimit: config.PRESENCE_RATE_LIMIT,
      accountLimits: {
        keys: config.PRESENCE_MAX_KEYS_PER_ACCOUNT,
        links: config.PRESENCE_MAX_LINKS_PER_ACCOUNT,
        standing: config.PRESENCE_MAX_STANDING_PER_ACCOUNT,
        memory: config.PRESENCE_MAX_MEMORY_PER_ACCOUNT,
      },
      keystore,
      surfaces,
      locks: cluster.locks,
      chainName: () => config.PRESENCE_CHAIN,
      ...(messaging ? { cluster: messaging } : {}),
      ...(overlayShare ? { overlayShare } : {}),
      onBackgroundError: (err) => console.error('presence: background store read failed:', err instanceof Error ? err.message : err),
      metrics: metrics.core,
      ...(chain ? { chain: { runtime: chain.runtime, keystore } } : {}),
      // `provider:model` routes talk to any OpenAI-compatible server; without a base URL they answer model_unavailable.
      ...(config.PRESENCE_LLM_BASE_URL
        ? {
            modelPlanner: createAiPlanner({
              baseUrl: config.PRESENCE_LLM_BASE_URL,
              ...(config.PRESENCE_LLM_API_KEY ? { apiKey: config.PRESENCE_LLM_API_KEY } : {}),
            }),
          }
        : {}),
    });
    // Runs after the HTTP server has closed (cleanups run in reverse): acting standing fires
    // under way get a few seconds to finish while the chain and store are still up; one
    // that needs longer is completed from its durable record at the next start.
    cleanups.push(() => Promise.race([core.standing.drain(), new Promise<void>((r) => setTimeout(r, STANDING_DRAIN_MS).unref())]));
    // Stranded intents are the leader's to recover, and only those whose server is gone (see
    // recoverAsLeader); embedded, this process is the only one and recovers everything.
    const recoverAsLeader = async () => {
      if (!core.wallet) return;
      if (!cluster.shared || (await cluster.peers()) === 0) {
        const r = await core.wallet.recover();
        if (r.settled + r.failed > 0) progress(`recovered interrupted intents: ${r.settled} settled, ${r.failed} failed`);
      } else {
        const n = await core.wallet.resumeStranded(CLUSTER_STRANDED_MS);
        if (n > 0) progress(`resuming ${n} intents stranded for over ${CLUSTER_STRANDED_MS / 1000} s`);
      }
    };
    const recoveredAtStart = cluster.isLeader();
    if (recoveredAtStart) await recoverAsLeader();

    const keysFile = bootstrapKeysFile(dataDir);
    const created = await core.accounts.bootstrap(keysFile);

    const runtime = chain?.runtime;
    const logging =
      logger !== undefined ? null : productionLogging(config.PRESENCE_LOG_LEVEL, logFormat, logStream, { server: cluster.serverId });
    // After the app has closed (cleanups run in reverse): every request line is out before the process exits.
    if (logging) cleanups.push(() => logging.close());
    const app = await buildApp({
      core,
      store: storeInfo,
      server: () => ({ id: cluster.serverId, leader: cluster.isLeader() }),
      metrics,
      metricsToken: config.PRESENCE_METRICS_TOKEN ?? null,
      corsOrigins: config.PRESENCE_CORS_ORIGINS,
      limits: {
        streams: {
          perKey: config.PRESENCE_MAX_STREAMS_PER_KEY,
          perAccount: config.PRESENCE_MAX_STREAMS_PER_ACCOUNT,
          total: config.PRESENCE_MAX_STREAMS,
        },
        authFailures: config.PRESENCE_AUTH_FAIL_LIMIT,
        maxConnections: config.PRESENCE_MAX_CONNECTIONS,
        connectionsPerAddress: config.PRESENCE_MAX_CONNECTIONS_PER_ADDRESS,
        requestTimeoutMs: config.PRESENCE_REQUEST_TIMEOUT,
      },
      trustedProxies: config.PRESENCE_TRUSTED_PROXIES,
      ...(runtime
        ? {
            // Health is what readiness probes poll: a stalled RPC must not hold it for the
            // chain's full timeout (about 10 s), so the head is only waited for briefly and
            // reported as null after that.
            chainHead: async () => {
              const probe = runtime.chain.health();
              let timer: NodeJS.Timeout | undefined;
              const late = new Promise<null>((resolve) => {
                timer = setTimeout(() => resolve(null), HEALTH_CHAIN_TIMEOUT_MS);
              });
              try {
                const h = await Promise.race([probe, late]);
                return h && { id: h.chainId, block: Number(h.block) };
              } finally {
                clearTimeout(timer);
                probe.catch(() => undefined); // its late failure is no longer anyone's answer
              }
            },
          }
        : {}),
      ...(logging ? logging.options : { logger }),
      heartbeatMs,
      streamRecheckMs: messaging ? STREAM_RECHECK_MS : 0,
    });
    cleanups.push(() => app.close());
    await app.listen({ host: config.PRESENCE_HOST, port: config.PRESENCE_PORT });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PRESENCE_PORT;
    const host = config.PRESENCE_HOST.includes(':') ? `[${config.PRESENCE_HOST}]` : config.PRESENCE_HOST;
    // Listening: the keys are handed over now (a start whose listen failed kept them for this one).
    const bootstrap = created ?? keysFile.unshown();
    keysFile.markShown();

    let ledBefore = recoveredAtStart;
    const work = startBackgroundWork({
      core,
      clock,
      standingMs,
      maintenanceMs,
      isLeader: () => cluster.isLeader(),
      onLeadership: async () => {
        // The first takeover after a start that already recovered has nothing more to do.
        if (ledBefore) {
          ledBefore = false;
          return;
        }
        await recoverAsLeader();
      },
      warn: (err, what) => app.log.warn({ err, server: cluster.serverId }, what),
    });
    // Runs first on close: the beats stop and leadership passes to another server at once,
    // before this one drains its requests and streams.
    cleanups.push(async () => {
      work.stop();
      await cluster.resign();
    });

    return {
      url: `http://${host}:${port}`,
      core,
      cluster: { serverId: cluster.serverId, shared: cluster.shared, isLeader: () => cluster.isLeader() },
      bootstrap,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
