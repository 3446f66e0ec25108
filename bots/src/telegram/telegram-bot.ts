// The Telegram adapter (grammY): long polling or a webhook, the ChatPort over the Bot API
// (telegram-port) and updates mapped onto the shared surface (updates), put together here.
//
// Start-up never waits silently: one getMe (grammY's init() would retry a network failure for
// ever, without a word), and the whole start within a deadline; a stop cuts it short.
import { Bot, GrammyError } from 'grammy';
import { TELEGRAM_API_ROOT } from '../config';
import { abortable, anySignal } from '../surface/abortable';
import type { PgLinkStore } from '../surface/pg-link-store';
import { COMMANDS } from '../surface/render';
import { createSurface, type SurfaceOptions } from '../surface/surface';
import { createCallLimit } from './call-limit';
import { retryAfter } from './retry-after';
import { createSendPace } from './send-pace';
import { createTelegramPort } from './telegram-port';
import { routeUpdates } from './updates';
import { createWebhookServer } from './webhook';

/** How long a start waits for the Bot API before it fails. */
const START_LIMIT_S = 10;
/** How long a stop waits for its last Bot API call (confirming the updates taken). */
const STOP_LIMIT_MS = 3000;

export type TelegramBotOptions = Omit<SurfaceOptions, 'port'> & {
  token: string;
  apiRoot?: string;
  /** Long-poll timeout in seconds (default 30). */
  pollTimeoutS?: number;
  /** Updates by webhook instead of long polling (several processes behind a balancer). */
  webhook?: { url: string; secret: string; port: number; host: string } | null;
};

/**
 * Why a Bot API call failed on the network, without the request's address (it holds the
 * token): grammY's HttpError wraps node-fetch's FetchError, "request to <url> failed,
 * reason: connect ECONNREFUSED …".
 */
function networkReason(e: unknown): string {
  const inner = (e as { error?: unknown } | null)?.error ?? e;
  const message = inner instanceof Error ? inner.message : String(inner);
  return (/reason: (.*)$/.exec(message)?.[1] ?? message).replace(/\bhttps?:\/\/\S+/g, '<address>');
}

export function createTelegramBot(o: TelegramBotOptions) {
  const apiRoot = o.apiRoot ?? TELEGRAM_API_ROOT;
  const pollTimeoutS = o.pollTimeoutS ?? 30;
  // grammY's default limit per call is 500 s; a hung Bot API should not hold a reply that long.
  const bot = new Bot(o.token, { client: { apiRoot, timeoutSeconds: pollTimeoutS + 15 } });
  const callLimit = createCallLimit();
  bot.api.config.use(
    // Innermost: every attempt, retries included, takes a slot; shared by every process when the table is.
    createSendPace('paceSlot' in o.store ? { shared: (o.store as PgLinkStore).paceSlot } : {}).transformer,
    retryAfter({ onWait: (method, seconds) => o.log('warn', 'Telegram asked us to slow down', { method, retry_after: seconds }) }),
    callLimit.transformer, // outermost, so it also cuts retryAfter's waits
  );
  const port = createTelegramPort(bot.api);
  const surface = createSurface({ ...o, port });

  routeUpdates(bot, surface);
  bot.catch((err) => o.log('error', 'a Telegram update failed', { update: err.ctx.update.update_id, error: String(err.error) }));

  const webhook = o.webhook
    ? createWebhookServer({
        path: new URL(o.webhook.url).pathname,
        secret: o.webhook.secret,
        port: o.webhook.port,
        host: o.webhook.host,
        claim: (id) => o.store.claimUpdate('telegram', id),
        handle: (update) => bot.handleUpdate(update),
        log: o.log,
      })
    : null;
  let polling: Promise<void> | null = null;
  let polled = false; // updates may have been taken: a stop confirms them
  let stopping = false;

  /** What a failed start says: the platform's refusal as it is, otherwise whether the API answered at all. */
  function startFailure(e: unknown, deadline: AbortSignal): unknown {
    if (e instanceof GrammyError) return e;
    if (deadline.aborted) return new Error(`the Telegram Bot API at ${apiRoot} did not answer within ${START_LIMIT_S} s`);
    return new Error(`the Telegram Bot API at ${apiRoot} cannot be reached (${networkReason(e)})`);
  }

  return {
    bot,
    surface,
    port,
    /**
     * getMe, commands menu, events feeds, then long polling; resolves once polling runs.
     * Fails when the Bot API refuses the token, cannot be reached or does not answer within
     * the start limit; rejects with the signal's reason as soon as `signal` aborts.
     */
    async start(signal?: AbortSignal) {
      const deadline = AbortSignal.timeout(START_LIMIT_S * 1000);
      const limit = anySignal(signal, deadline);
      callLimit.set(limit);
      o.log('info', 'Telegram: reaching the Bot API', { api: apiRoot });
      try {
        // One attempt: init() would retry a network failure for ever, silently.
        bot.botInfo = await bot.api.getMe();
        await bot.api.setMyCommands(COMMANDS.map((c) => ({ command: c.name, description: c.description }))).catch((e: unknown) => {
          if (!limit.aborted) o.log('warn', 'could not set the Telegram command menu', { error: String(e) });
        });
        limit.throwIfAborted();
        surface.start();
        if (webhook && o.webhook) {
          const local = await webhook.listen();
          await bot.api.setWebhook(o.webhook.url, { secret_token: o.webhook.secret, allowed_updates: ['message', 'callback_query'] });
          o.log('info', 'Telegram bot serving its webhook', { username: bot.botInfo.username, listening: local });
          return;
        }
        await abortable(
          new Promise<void>((resolve, reject) => {
            polling = bot.start({
              allowed_updates: ['message', 'callback_query'],
              timeout: pollTimeoutS,
              onStart: () => {
                polled = true;
                callLimit.set(undefined); // before the first long poll: the deadline is the start's only
                resolve();
              },
            });
            polling.catch((e: unknown) => {
              if (!stopping) o.log('error', 'Telegram polling stopped', { error: String(e) });
              reject(e);
            });
          }),
          limit,
        );
      } catch (e) {
        signal?.throwIfAborted(); // asked to stop: not a failure
        throw startFailure(e, deadline);
      } finally {
        callLimit.set(undefined);
      }
      o.log('info', 'Telegram bot polling', { username: bot.botInfo.username });
    },
    /**
     * Stops polling (confirming the updates taken, for a few seconds at most), waits for work
     * in flight, stops the feeds. Also ends grammY's polling set-up left by an aborted start.
     */
    async stop() {
      stopping = true;
      // The webhook stays set: the other processes behind the balancer keep serving it.
      await webhook?.close();
      if (bot.isRunning()) {
        // bot.stop() is what ends grammY's set-up too; before the first poll there is nothing to confirm.
        callLimit.set(polled ? AbortSignal.timeout(STOP_LIMIT_MS) : AbortSignal.abort());
        try {
          await bot.stop();
        } catch (e) {
          if (polled) o.log('warn', 'could not confirm the last Telegram updates; they may come again', { error: networkReason(e) });
        } finally {
          callLimit.set(undefined);
        }
      }
      await polling?.catch(() => undefined);
      await surface.stop();
    },
  };
}
