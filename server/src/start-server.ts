// Starts a complete Presence server from a Config, as a list of named steps (startServer reads
// as that list): the data directory, the storage (and what servers share through it), the
// deployment's coordination, the chain, core, recovery, the first start's keys, the HTTP
// listener, the background work. Each step that opens something says how to close it
// (`cleanups`); `close()` runs those in reverse.
import { type Clock, type Core, createKeystore, loadOrCreateMasterKey, makeTreePrivate, systemClock } from '@presence/core';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { buildApp } from './app';
import { startBackgroundWork } from './background-work';
import { bootstrapKeysFile } from './bootstrap-keys';
import { type Cleanups, createCleanups } from './cleanups';
import type { Config } from './config';
import { type Coordination, openCoordination } from './coordination';
import { takeDataDirLock } from './data-dir-lock';
import { loadDevnet } from './load-devnet';
import { type LogFormat, type LogStream, type ProductionLogging, productionLogging } from './logger';
import { meteredChain } from './metrics/metered-ports';
import { createMetrics, type Metrics } from './metrics/metrics';
import { openStorage, type Storage } from './open-storage';
import { createServerCore } from './server-core';
import { chainHead, startChain } from './start-chain';

export type RunningServer = {
  url: string;
  core: Core;
  /** This server's id and its part in the deployment (leader or not). */
  coordination: Pick<Coordination, 'serverId' | 'isLeader' | 'shared'>;
  /**
   * The bootstrap keys, on the first start that listens after they were created (or, after a
   * crash, completed): the caller shows them, once. Null on every other start.
   */
  bootstrap: { account: string; live: string; test: string } | null;
  /** The server's logger, for what the process says about itself after the start (a crash). */
  log: FastifyBaseLogger;
  /** Writes out what the log still buffers (a crash exits without running `close()`). */
  flushLog(): Promise<void>;
  /** Resolves with why if the server's chain is gone for good (its embedded devnet gave up); pending otherwise. */
  chainLost: Promise<string>;
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

const STANDING_DRAIN_MS = 5_000;
/** With other servers on the database: the safety-net look at open streams' keys (revocations arrive by NOTIFY). */
const STREAM_RECHECK_MS = 15_000;

type Progress = (line: string) => void;
type Chain = Awaited<ReturnType<typeof startChain>>;
/** What core and the chain are told before the listener exists, filled in once it does. */
type LateBound = { publicUrl: string; logRefusal: (r: Record<string, unknown>) => void; logChain: (line: string) => void };

/** Everything kept is private (0700 directories, 0600 files), and the master key is loaded. */
function openDataDir(config: Config, progress: Progress) {
  const dataDir = config.PRESENCE_DATA_DIR;
  // A tree written by an earlier version is fixed here, before anything is read or served.
  const madePrivate = makeTreePrivate(dataDir);
  if (madePrivate > 0) progress(`made ${madePrivate} entries of ${dataDir} private (directories 0700, files 0600)`);
  return createKeystore(loadOrCreateMasterKey({ configured: config.PRESENCE_MASTER_KEY, dataDir }));
}

/** The deployment: this server's id, its part (leader or not), and every series labelled with it. */
async function joinDeployment(config: Config, storage: Storage, metrics: Metrics, cleanups: Cleanups, progress: Progress) {
  const coordination = await openCoordination(config, storage.database, progress);
  cleanups.add(() => coordination.close());
  // Every series names its server, so a deployment's scrapes add up without clashing.
  metrics.registry.setDefaultLabels({ server: coordination.serverId });
  metrics.watchLeadership(() => coordination.isLeader());
  // A leader has said so as it took the lead (coordination.ts); a follower says it here, once.
  if (coordination.shared && !coordination.isLeader()) progress(`server ${coordination.serverId}: follower of the background work`);
  return coordination;
}

/** The chain (devnet or RPC), its port timed for /metrics; null when the server runs without one. */
async function startMeteredChain(
  config: Config,
  devnetPackage: Awaited<ReturnType<typeof loadDevnet>> | null,
  coordination: Coordination,
  { metrics, cleanups, progress, late }: { metrics: Metrics; cleanups: Cleanups; progress: Progress; late: LateBound },
): Promise<Chain> {
  const started = await startChain(config, devnetPackage, coordination, { progress, log: (line) => late.logChain(line) });
  const chain = { ...started, runtime: { ...started.runtime, chain: meteredChain(started.runtime.chain, metrics) } };
  cleanups.add(() => chain.stop());
  return chain;
}

/** Core over the storage and the chain; standing fires under way get a few seconds at close. */
function startCore(
  config: Config,
  parts: Omit<Parameters<typeof createServerCore>[1], 'publicUrl' | 'onPasskeyRefused'>,
  late: LateBound,
  cleanups: Cleanups,
) {
  const core = createServerCore(config, {
    ...parts,
    publicUrl: () => late.publicUrl,
    // Refused passkey ceremonies are logged with the account and the reason, never the link's token.
    onPasskeyRefused: (r) => late.logRefusal(r),
  });
  // Runs after the HTTP server has closed: acting standing fires under way get a few seconds
  // to finish while the chain and store are still up; one that needs longer is completed
  // from its durable record at the next start.
  cleanups.add(() => Promise.race([core.standing.drain(), new Promise<void>((r) => setTimeout(r, STANDING_DRAIN_MS).unref())]));
  return core;
}

/**
 * The leader recovers what a crash interrupted (core decides what, by whether others run);
 * the returned `recover` runs again whenever this server takes the lead later.
 */
async function recoverInterrupted(core: Core, coordination: Coordination, cleanups: Cleanups, progress: Progress) {
  const recover = async () => {
    if (!core.wallet) return;
    const othersRunning = coordination.shared && (await coordination.peers()) > 0;
    const r = await core.wallet.recoverAsLeader({ othersRunning });
    if (r.settled + r.failed > 0) progress(`recovered interrupted intents: ${r.settled} settled, ${r.failed} failed`);
    if (r.resumed > 0) progress(`resuming ${r.resumed} intents stranded by a server that is gone`);
  };
  const recoveredAtStart = coordination.isLeader();
  if (recoveredAtStart) await recover();
  // Webhook endpoints whose account logged events while no server delivered (the first start
  // after all stopped); with servers running, they are delivering already and the leases tell.
  // Before the app closes (cleanups run last-added first): deliveries in flight finish first.
  if (core.webhooks) {
    const { dispatcher } = core.webhooks;
    cleanups.add(() => dispatcher.close());
    await dispatcher.recover();
  }
  return { recover, recoveredAtStart };
}

/** buildApp's options from the configuration. */
function appOptions(
  config: Config,
  o: { core: Core; storage: Storage; coordination: Coordination; metrics: Metrics; chain: Chain | null },
) {
  return {
    core: o.core,
    store: o.storage.info,
    server: () => ({ id: o.coordination.serverId, leader: o.coordination.isLeader() }),
    metrics: o.metrics,
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
    chainHead: o.chain ? chainHead(o.chain.runtime) : undefined,
    streamRecheckMs: o.storage.cluster ? STREAM_RECHECK_MS : 0,
  };
}

/** The HTTP app, listening; what core was told before it existed is filled in. */
async function listen(
  config: Config,
  options: Parameters<typeof buildApp>[0],
  { late, logging, cleanups }: { late: LateBound; logging: ProductionLogging | null; cleanups: Cleanups },
) {
  // After the app has closed: every request line is out before the process exits.
  if (logging) cleanups.add(() => logging.close());
  const app = await buildApp(options);
  cleanups.add(() => app.close());
  // Fastify would announce "Server listening at …" itself: the process's ready line (serve.ts)
  // says it once, with the data directory.
  const level = app.log.level;
  app.log.level = 'warn';
  try {
    await app.listen({ host: config.PRESENCE_HOST, port: config.PRESENCE_PORT });
  } finally {
    app.log.level = level;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PRESENCE_PORT;
  // Known once listening when PRESENCE_PUBLIC_URL is unset (the port may be 0 until then).
  late.publicUrl = config.PRESENCE_PUBLIC_URL ?? `http://localhost:${port}`;
  late.logRefusal = (r) => app.log.warn({ passkey_refused: r }, 'passkey refused');
  late.logChain = (line) => app.log.warn(line);
  const host = config.PRESENCE_HOST.includes(':') ? `[${config.PRESENCE_HOST}]` : config.PRESENCE_HOST;
  return { app, url: `http://${host}:${port}` };
}

/** The beats and upkeep; on close they stop first and leadership passes on at once. */
function startWork(
  o: Omit<Parameters<typeof startBackgroundWork>[0], 'isLeader' | 'warn'> & { coordination: Coordination; log: FastifyBaseLogger },
  cleanups: Cleanups,
) {
  const { coordination, log, ...rest } = o;
  const work = startBackgroundWork({
    ...rest,
    isLeader: () => coordination.isLeader(),
    warn: (err, what) => log.warn({ err, server: coordination.serverId }, what),
  });
  // Runs first on close: the beats stop and leadership passes to another server at once,
  // before this one drains its requests and streams.
  cleanups.add(async () => {
    await work.stop();
    await coordination.resign();
  });
}

/** What a started server hands its caller. */
function running(o: {
  url: string;
  core: Core;
  coordination: Coordination;
  bootstrap: RunningServer['bootstrap'];
  log: FastifyBaseLogger;
  logging: ProductionLogging | null;
  chain: Chain | null;
  cleanups: Cleanups;
}): RunningServer {
  const { coordination } = o;
  return {
    url: o.url,
    core: o.core,
    coordination: { serverId: coordination.serverId, shared: coordination.shared, isLeader: () => coordination.isLeader() },
    bootstrap: o.bootstrap,
    log: o.log,
    flushLog: async () => o.logging?.close(),
    chainLost: o.chain?.lost ?? new Promise<string>(() => undefined),
    close: () => o.cleanups.run(),
  };
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
  const cleanups = createCleanups();
  cleanups.add(takeDataDirLock(config.PRESENCE_DATA_DIR));
  try {
    const keystore = openDataDir(config, progress);
    const metrics = createMetrics({ process: true });
    // With a database, the data directory still keeps what is not in the store: the devnet's
    // state, the bootstrap keys file and the pid lock.
    const storage = await openStorage(config, keystore, { clock, metrics, cleanups });
    if (storage.info.kind === 'postgres') progress(`store: PostgreSQL, schema version ${storage.info.schema}`);
    const coordination = await joinDeployment(config, storage, metrics, cleanups, progress);
    const late: LateBound = {
      publicUrl: config.PRESENCE_PUBLIC_URL ?? `http://localhost:${config.PRESENCE_PORT}`,
      logRefusal: () => undefined,
      logChain: progress,
    };
    const chain = withChain ? await startMeteredChain(config, devnetPackage, coordination, { metrics, cleanups, progress, late }) : null;
    const core = startCore(config, { storage, coordination, chain: chain?.runtime ?? null, keystore, metrics, clock }, late, cleanups);
    const { recover, recoveredAtStart } = await recoverInterrupted(core, coordination, cleanups, progress);
    const keysFile = bootstrapKeysFile(config.PRESENCE_DATA_DIR);
    const created = await core.accounts.bootstrap(keysFile);
    const logging =
      logger !== undefined ? null : productionLogging(config.PRESENCE_LOG_LEVEL, logFormat, logStream, { server: coordination.serverId });
    const options = {
      ...appOptions(config, { core, storage, coordination, metrics, chain }),
      ...(logging ? logging.options : { logger }),
      heartbeatMs,
    };
    const { app, url } = await listen(config, options, { late, logging, cleanups });
    // Listening: the keys are handed over now (a start whose listen failed kept them for this one).
    const bootstrap = created ?? keysFile.unshown();
    keysFile.markShown();
    const work = { core, clock, standingMs, maintenanceMs, onLeadership: recover, ledAtStart: recoveredAtStart };
    startWork({ ...work, coordination, log: app.log }, cleanups);
    return running({ url, core, coordination, bootstrap, log: app.log, logging, chain, cleanups });
  } catch (e) {
    await cleanups.run();
    throw e;
  }
}
