// Starts the configured bots over one shared link table; `stop()` ends them in order. A start
// that fails, or that `signal` cuts short, stops whatever it had started before it rejects.

import { createPresenceClient } from '@presence/client';
import type { BotsConfig } from './config';
import { createDiscordBot, type DiscordBotOptions } from './discord/discord-bot';
import type { Logger } from './log';
import { importFileTable } from './surface/import-file-table';
import { openLinkStore } from './surface/link-store';
import { openPgLinkStore } from './surface/pg-link-store';
import type { SurfaceOptions } from './surface/surface';
import { createSurfaceStream } from './surface/surface-stream';
import { createTelegramBot } from './telegram/telegram-bot';

export type RunningBots = {
  telegram: ReturnType<typeof createTelegramBot> | null;
  discord: ReturnType<typeof createDiscordBot> | null;
  stop(): Promise<void>;
};

/** Options for both bots beyond the config (tests shorten intervals and retries). */
export type BotsTuning = Partial<Pick<SurfaceOptions, 'editIntervalMs' | 'client' | 'events' | 'now'>> & {
  pollTimeoutS?: number;
  /** With the bots' table in PostgreSQL: how often a standby asks for the surface stream's lead. */
  leadRetryMs?: number;
};

type RunConfig = Pick<BotsConfig, 'presenceUrl' | 'dataDir' | 'telegram' | 'discord'> &
  Partial<Pick<BotsConfig, 'surfaceToken' | 'databaseUrl'>>;

/**
 * What the bots of this process share: the link table (PostgreSQL when configured, else the
 * file table in the data directory), with a surface token its client and its one events
 * stream, and the options both bots take.
 */
async function openShared(config: RunConfig, log: Logger, tuning: BotsTuning) {
  // One surface stream for the whole process, whichever platforms it runs.
  const surfaceClient = config.surfaceToken
    ? createPresenceClient({ ...tuning.client, baseUrl: config.presenceUrl, token: config.surfaceToken })
    : null;
  const shared = config.databaseUrl ? await openPgLinkStore(config.databaseUrl, { log }) : null;
  if (shared && surfaceClient) await importFileTable({ dataDir: config.dataDir, into: shared, client: surfaceClient, log });
  const store = shared ?? (await openLinkStore(config.dataDir, { log }));
  const surfaceStream = surfaceClient
    ? createSurfaceStream({
        client: surfaceClient,
        store,
        log,
        reconnect: tuning.events?.reconnect,
        restartMs: tuning.events?.restartMs,
        lead: shared?.leadStream,
        leadRetryMs: tuning.leadRetryMs || undefined,
      })
    : null;
  const common = {
    ...tuning,
    store,
    presenceUrl: config.presenceUrl,
    log,
    onSecret: log.addSecret,
    surfaceToken: surfaceClient && surfaceStream ? { client: surfaceClient, stream: surfaceStream } : undefined,
  } satisfies Omit<DiscordBotOptions, 'token'>;
  return { store, surfaceStream, common };
}

export async function runBots(config: RunConfig, log: Logger, tuning: BotsTuning = {}, signal?: AbortSignal): Promise<RunningBots> {
  for (const t of [config.telegram?.token, config.discord?.token, config.surfaceToken]) if (t) log.addSecret(t);
  const { store, surfaceStream, common } = await openShared(config, log, tuning);
  const telegram = config.telegram
    ? createTelegramBot({
        ...common,
        token: config.telegram.token,
        apiRoot: config.telegram.apiRoot,
        webhook: config.telegram.webhook,
      })
    : null;
  const discord = config.discord
    ? createDiscordBot({
        ...common,
        token: config.discord.token,
        apiRoot: config.discord.apiRoot,
        shards: config.discord.shards,
      })
    : null;
  const stop = async () => {
    await Promise.allSettled([telegram?.stop(), discord?.stop(), surfaceStream?.stop()]);
    await store.close();
  };
  try {
    await telegram?.start(signal);
    await discord?.start(signal);
    signal?.throwIfAborted();
    surfaceStream?.start();
  } catch (e) {
    await stop();
    throw e;
  }
  return { telegram, discord, stop };
}
