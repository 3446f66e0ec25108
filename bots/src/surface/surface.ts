// The shared surface: everything a chat bot does, written once against the ChatPort, put
// together here from its parts: the linked users (linked-users), linking (linking), relayed
// turns (relaying), commands (commands), confirmation cards (cards), each user's events
// feed (event-feed) and what those events show (event-handling). Business rules
// stay on the server: the bots relay text, render what comes back and answer holds through
// the confirm endpoint.
import type { PresenceClient, PresenceClientOptions } from '@presence/client';
import { createCards } from './cards';
import { type ChatPort, type ChatUser, type TextContext, userKey } from './chat-port';
import { createCommands, parseCommand } from './commands';
import { createEventFeeds } from './event-feed';
import { createEventHandler } from './event-handling';
import type { LinkStore } from './link-store';
import { createLinkedUsers } from './linked-users';
import { createLinking } from './linking';
import type { Log } from './logging';
import { moveOverToSurface } from './move-over';
import { createRelaying } from './relaying';
import { splitMessage } from './split';
import type { SurfaceStream } from './surface-stream';

export type SurfaceOptions = {
  port: ChatPort;
  store: LinkStore;
  /** The Presence server, e.g. http://127.0.0.1:8787. */
  presenceUrl: string;
  log: Log;
  /** Called with every key the surface opens, so the logger can redact it. */
  onSecret?: (secret: string) => void;
  now?: () => number;
  /** Minimum time between edits in one chat (default 1000 ms). */
  editIntervalMs?: number;
  /** Passed to every Presence client (retries, time limits, fetch). */
  client?: Omit<PresenceClientOptions, 'baseUrl' | 'token'>;
  /** Events reconnect backoff and restart delay (tests shorten them). */
  events?: { reconnect?: { baseDelayMs?: number; maxDelayMs?: number }; restartMs?: number };
  /**
   * With PRESENCE_SURFACE_TOKEN: the bot's surface client and its one events stream (shared
   * by the platforms of this process). Codes are redeemed through it, users acted for by key id.
   */
  surfaceToken?: { client: PresenceClient; stream: SurfaceStream };
};

export type Surface = ReturnType<typeof createSurface>;

/**
 * The surface's parts, each handed the others it uses. Linked users and linking start and stop
 * feeds, which are made after them: they look `feeds` up when they call it, not when made.
 */
function assembleParts(o: SurfaceOptions, say: (chatId: string, text: string) => Promise<void>) {
  const { port, store, log } = o;
  const now = o.now ?? Date.now;
  const clientOptions = { ...o.client, baseUrl: o.presenceUrl };
  const surfaceClient = o.surfaceToken?.client;
  const users = createLinkedUsers({
    port,
    store,
    log,
    clientOptions,
    surfaceClient,
    onSecret: o.onSecret,
    say,
    stopFeed: (owner) => feeds.stop(owner),
  });
  const cards = createCards({ store, port, clientFor: users.clientFor, now, log, revoked: (owner) => users.revoked(owner) });
  const relaying = createRelaying({ port, store, users, log, say, editIntervalMs: o.editIntervalMs ?? 1000 });

  const handleEvent = createEventHandler({ store, users, relaying, cards, say });

  const feeds = createEventFeeds({
    store,
    clientFor: users.clientFor,
    handle: handleEvent,
    revoked: (owner) => users.revoked(owner),
    log,
    ...o.events, // reconnect backoff, restart delay
  });

  const linking = createLinking({
    port,
    store,
    users,
    log,
    clientOptions,
    surfaceClient,
    onSecret: o.onSecret,
    now,
    // A link through the surface token is on the surface stream already; only a kept key needs a feed of its own.
    startFeed: (owner) => {
      if (store.get(owner)?.sealed_key !== undefined) feeds.start(owner);
    },
    stopFeed: (owner) => feeds.stop(owner),
  });
  const command = createCommands({ store, users, linking, cards, now });
  return { users, relaying, cards, handleEvent, feeds, command };
}

export function createSurface(o: SurfaceOptions) {
  const { port, store, log } = o;
  const inFlight = new Set<Promise<unknown>>();

  async function say(chatId: string, text: string) {
    for (const part of splitMessage(text, port.maxLength)) await port.send(chatId, part);
  }

  const { users, relaying, cards, handleEvent, feeds, command } = assembleParts(o, say);

  return {
    say,
    command,
    /** A button press: answer the platform with `toast` at once, then await `run` if present. */
    press: cards.press,

    /** Text typed in a chat: a command, or a message for the presence. */
    async text(user: ChatUser, chatId: string, text: string, ctx: TextContext) {
      const cmd = parseCommand(text);
      if (!cmd) {
        await users.rememberHome(user, chatId, ctx.isPrivate);
        return relaying.relay(user, chatId, text, ctx.source);
      }
      const reply = await command(user, chatId, cmd.name, cmd.args, ctx);
      let answer = reply.text;
      // A code spent here need not stay in the chat's history; one voided in a group, not there either.
      if (reply.removeSource) {
        const source = ctx.source;
        const removed =
          source !== undefined && port.remove !== undefined
            ? await port.remove(source).then(
                () => true,
                (e: unknown) => {
                  log('warn', 'could not remove the /link message', { error: String(e) });
                  return false;
                },
              )
            : false;
        if (removed && reply.removedText) answer = reply.removedText;
      }
      await say(chatId, answer);
      await reply.after?.();
    },

    /** Runs adapter work without blocking the platform's update loop; `stop` waits for it. */
    spawn(task: () => Promise<unknown>) {
      const p = task()
        .catch((e: unknown) => log('error', 'handling an update failed', { error: String(e) }))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    },

    /**
     * Starts the events of every user linked on this platform: with a surface token, through
     * the one surface stream (links made with a kept key are moved over to it now, see
     * move-over.ts); without, one feed per user.
     */
    start() {
      const viaSurface = o.surfaceToken;
      if (!viaSurface) {
        for (const l of store.list(port.surface)) feeds.start(userKey({ surface: l.surface, id: l.user_id }));
        return;
      }
      viaSurface.stream.register(port.surface, { event: handleEvent, revoked: (owner) => users.revoked(owner) });
      moveOverToSurface({
        platform: port.surface,
        store,
        client: viaSurface.client,
        stream: viaSurface.stream,
        users,
        handle: handleEvent,
        log,
        keepFeed: (owner) => feeds.start(owner),
      });
    },

    /** Waits for work in flight, then stops the feeds. The store stays open (it may be shared). */
    async stop() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await feeds.stopAll();
    },
  };
}
