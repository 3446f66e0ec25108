// presence-bots configuration from the environment. A bot whose token is unset stays off;
// with neither token there is nothing to run, which is an error. Messages never quote a token.
import path from 'node:path';

// The platforms' roots and the shard split live here, not beside the adapters: reading the
// environment loads neither discord.js nor grammY, so a wrong setting is told in a moment.
export const TELEGRAM_API_ROOT = 'https://api.telegram.org';
export const DISCORD_API_ROOT = 'https://discord.com/api';
/** Which of the bot's gateway shards this process runs (DISCORD_SHARDS, DISCORD_SHARD_IDS). */
export type DiscordShards = { count: number | 'auto'; ids: number[] | null };

export type BotsConfig = {
  presenceUrl: string;
  dataDir: string;
  telegram: { token: string; apiRoot: string; webhook?: TelegramWebhook | null } | null;
  discord: { token: string; apiRoot: string; shards?: DiscordShards | null } | null;
  /** PRESENCE_SURFACE_TOKEN: link and act through the bot's surface token, one events stream per process. */
  surfaceToken: string | null;
  /** PRESENCE_BOTS_DATABASE_URL: the bots' table in PostgreSQL, shared by several bot processes. */
  databaseUrl: string | null;
};

export class BotsConfigError extends Error {}

/** TELEGRAM_WEBHOOK_URL + TELEGRAM_WEBHOOK_SECRET, served on PRESENCE_BOTS_HOST:PRESENCE_BOTS_PORT. */
export type TelegramWebhook = { url: string; secret: string; port: number; host: string };
export const DEFAULT_BOTS_PORT = 8788;

/** DISCORD_SHARDS (`auto` or the total) and DISCORD_SHARD_IDS (this process's, e.g. `0,1`). */

function discordShards(env: NodeJS.ProcessEnv): DiscordShards | null {
  const count = env.DISCORD_SHARDS?.trim() ?? '';
  const ids = env.DISCORD_SHARD_IDS?.trim() ?? '';
  if (!count && !ids) return null;
  if (count !== 'auto' && !/^[1-9]\d{0,4}$/.test(count))
    throw new BotsConfigError(`invalid DISCORD_SHARDS=${JSON.stringify(count)}: expected auto or the number of shards`);
  const list = ids ? ids.split(',').map((x) => x.trim()) : null;
  if (list && (count === 'auto' || list.some((x) => !/^\d{1,5}$/.test(x) || Number(x) >= Number(count))))
    throw new BotsConfigError('invalid DISCORD_SHARD_IDS: expected ids below DISCORD_SHARDS (a number), e.g. 0,1');
  return { count: count === 'auto' ? 'auto' : Number(count), ids: list ? list.map(Number) : null };
}

function telegramWebhook(env: NodeJS.ProcessEnv): TelegramWebhook | null {
  const url = env.TELEGRAM_WEBHOOK_URL?.trim() ?? '';
  const secret = env.TELEGRAM_WEBHOOK_SECRET?.trim() ?? '';
  if (!url && !secret) return null;
  if (!url || !secret) throw new BotsConfigError('TELEGRAM_WEBHOOK_URL and TELEGRAM_WEBHOOK_SECRET go together (see bots/README.md)');
  // Telegram's own rule for secret_token: 1–256 of A–Z, a–z, 0–9, _ and -.
  if (!/^[A-Za-z0-9_-]{16,256}$/.test(secret))
    throw new BotsConfigError('invalid TELEGRAM_WEBHOOK_SECRET: 16 to 256 letters, digits, "_" or "-"');
  const webhookUrl = httpUrl(env, 'TELEGRAM_WEBHOOK_URL', url);
  const portText = env.PRESENCE_BOTS_PORT?.trim() || String(DEFAULT_BOTS_PORT);
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65_535)
    throw new BotsConfigError(`invalid PRESENCE_BOTS_PORT=${JSON.stringify(portText)}: expected a port number`);
  return { url: webhookUrl, secret, port, host: env.PRESENCE_BOTS_HOST?.trim() || '127.0.0.1' };
}

export const DEFAULT_PRESENCE_URL = 'http://127.0.0.1:8787';
export const DEFAULT_DATA_DIR = './.presence-bots';

function httpUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name]?.trim() || fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BotsConfigError(`invalid ${name}=${JSON.stringify(value)}: expected an http(s) address`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BotsConfigError(`invalid ${name}=${JSON.stringify(value)}: expected an http(s) address`);
  }
  return value.replace(/\/+$/, '');
}

export function loadBotsConfig(env: NodeJS.ProcessEnv = process.env): BotsConfig {
  const telegramToken = env.TELEGRAM_BOT_TOKEN?.trim() ?? '';
  const discordToken = env.DISCORD_BOT_TOKEN?.trim() ?? '';
  if (!telegramToken && !discordToken) {
    throw new BotsConfigError('no bot to run: set TELEGRAM_BOT_TOKEN and/or DISCORD_BOT_TOKEN (see bots/README.md)');
  }
  const surfaceToken = env.PRESENCE_SURFACE_TOKEN?.trim() || null;
  if (surfaceToken !== null && !/^prs_surface_[0-9A-Za-z]{32,128}$/.test(surfaceToken))
    throw new BotsConfigError('invalid PRESENCE_SURFACE_TOKEN: expected prs_surface_… (made by `presence-server surfaces create NAME`)');
  const databaseUrl = env.PRESENCE_BOTS_DATABASE_URL?.trim() || null;
  if (databaseUrl !== null) {
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new BotsConfigError('invalid PRESENCE_BOTS_DATABASE_URL: expected postgres://…');
    if (surfaceToken === null)
      throw new BotsConfigError(
        'PRESENCE_BOTS_DATABASE_URL needs PRESENCE_SURFACE_TOKEN: the shared table keeps no user keys (see bots/README.md)',
      );
  }
  return {
    presenceUrl: httpUrl(env, 'PRESENCE_URL', DEFAULT_PRESENCE_URL),
    surfaceToken,
    databaseUrl,
    // Relative to where the command was typed: `npm run bots` at the root runs in bots/, but npm keeps INIT_CWD.
    dataDir: path.resolve(env.INIT_CWD || process.cwd(), env.PRESENCE_BOTS_DATA_DIR?.trim() || DEFAULT_DATA_DIR),
    telegram: telegramToken
      ? { token: telegramToken, apiRoot: httpUrl(env, 'TELEGRAM_API_ROOT', TELEGRAM_API_ROOT), webhook: telegramWebhook(env) }
      : null,
    discord: discordToken
      ? { token: discordToken, apiRoot: httpUrl(env, 'DISCORD_API_ROOT', DISCORD_API_ROOT), shards: discordShards(env) }
      : null,
  };
}
