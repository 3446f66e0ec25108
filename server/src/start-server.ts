// Starts a complete Presence server from a Config: data-dir lock, store, core, first-start
// bootstrap, HTTP listener and periodic upkeep. `close()` stops everything in order.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Clock, type Core, createCore, createLowdbStore, systemClock } from '@presence/core';
import type { FastifyServerOptions } from 'fastify';
import { buildApp } from './app';
import type { Config } from './config';
import { takeDataDirLock } from './data-dir-lock';

export type RunningServer = {
  url: string;
  core: Core;
  /** Set only on the start that created the account. */
  bootstrap: { account: string; live: string; test: string } | null;
  close(): Promise<void>;
};

export type StartOptions = {
  config: Config;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  heartbeatMs?: number;
  /** Upkeep period (retention, compactor); tests drive upkeep by hand with 0. */
  maintenanceMs?: number;
};

const HOUR = 3_600_000;

export async function startServer({
  config,
  clock = systemClock,
  logger,
  heartbeatMs,
  maintenanceMs = 60_000,
}: StartOptions): Promise<RunningServer> {
  const dataDir = config.PRESENCE_DATA_DIR;
  const unlock = takeDataDirLock(dataDir);
  const cleanups: (() => Promise<void> | void)[] = [unlock];
  const close = async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  };
  try {
    const store = await createLowdbStore({ dataDir });
    cleanups.push(() => store.close());
    const core = createCore({ store, clock, rateLimit: config.PRESENCE_RATE_LIMIT, chainName: () => config.PRESENCE_CHAIN });

    const bootstrap = await core.accounts.bootstrap();
    if (bootstrap) {
      writeFileSync(path.join(dataDir, 'bootstrap-keys.json'), `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });
    }

    const app = await buildApp({
      core,
      logger: logger ?? { level: config.PRESENCE_LOG_LEVEL, redact: ['req.headers.authorization'] },
      heartbeatMs,
    });
    cleanups.push(() => app.close());
    await app.listen({ host: config.PRESENCE_HOST, port: config.PRESENCE_PORT });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PRESENCE_PORT;
    const host = config.PRESENCE_HOST.includes(':') ? `[${config.PRESENCE_HOST}]` : config.PRESENCE_HOST;

    if (maintenanceMs > 0) {
      let lastCompaction = clock.now();
      const timer = setInterval(() => {
        void (async () => {
          await core.maintain();
          if (clock.now() - lastCompaction >= HOUR) {
            lastCompaction = clock.now();
            await core.compactor.runOnce();
          }
        })().catch((err) => app.log.error({ err }, 'upkeep failed'));
      }, maintenanceMs);
      timer.unref();
      cleanups.push(() => clearInterval(timer));
    }

    return { url: `http://${host}:${port}`, core, bootstrap, close };
  } catch (e) {
    await close();
    throw e;
  }
}
