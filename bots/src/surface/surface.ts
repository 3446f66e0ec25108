// The shared surface: everything a chat bot does, written once against the ChatPort.
// Linking, the per-user Presence client, the events feed, relayed turns streamed into
// edits, commands and confirmation cards. Business rules stay on the server: the bots
// relay text, render what comes back and answer holds through the confirm endpoint.
//
// Acting: a relayed message carries allow_act exactly when the linked key holds wallet:act
// (the default for link codes). Whoever made the code chose the scopes, and the spend
// policy still holds anything over confirm_over for a tap on [Approve].
//
// Linking happens in private chats only. A code typed anywhere else is voided on sight
// (redeemed, its key revoked at once), since everyone there saw it.
import {
  createPresenceClient,
  type PresenceClient,
  type PresenceClientOptions,
  type PresenceEvent,
  type RedeemLinkReturnType,
} from '@presence/client';
import { createCards } from './cards';
import { type ChatPort, type ChatUser, type MessageRef, userKey } from './chat-port';
import { parseCommand } from './commands';
import { createEventFeeds, type Log } from './event-feed';
import type { LinkRecord, LinkStore } from './link-store';
import { createPacer } from './pacer';
import { describeError, isRevoked, isUnavailable, problemType } from './problems';
import {
  alreadyLinkedText,
  helpText,
  LINK_IN_PRIVATE,
  LINK_USAGE,
  linkedText,
  NOT_LINKED,
  pendingText,
  REVOKED,
  type SeenCodeOutcome,
  seenCodeText,
  unknownCommandText,
  unlinkedText,
  walletText,
} from './render';
import { splitMessage } from './split';
import { createStreamReply } from './stream-reply';

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
};

export type CommandReply = {
  text: string;
  after?: () => Promise<void>;
  /** The user's message carried a link code: delete it where the platform lets us. */
  removeSource?: boolean;
  /** Said instead of `text` once the message is deleted (when that changes what to say). */
  removedText?: string;
};

export type TextContext = {
  /** A private chat (DM): links are allowed and it becomes the user's home chat. */
  isPrivate: boolean;
  /** Outside a private chat, only this user sees the command and its answer (Discord's ephemeral slash commands). */
  discreet?: boolean;
  /** The user's message, for removal after /link (or a /link refused in a group) and as the turn's Idempotency-Key. */
  source?: MessageRef;
};

const CODE_GONE = 'That code is unknown, used or expired. Make a new one (`presence link`) and send /link CODE again.';
const MAX_ORIGINS = 500;
const TURN_IDLE_MS = 60_000;

export type Surface = ReturnType<typeof createSurface>;

export function createSurface(o: SurfaceOptions) {
  const { port, store, log } = o;
  const now = o.now ?? Date.now;
  const clientOptions = { ...o.client, baseUrl: o.presenceUrl };
  const clients = new Map<string, PresenceClient>();
  const anonymous = createPresenceClient(clientOptions);
  const pacer = createPacer(o.editIntervalMs ?? 1000);
  /** owner → the turn in flight: a hold raised during it is shown in its chat, after its reply. */
  const activeTurn = new Map<string, { chatId: string; done: Promise<void> }>();
  /** confirm id → chat whose turn raised it, for a needs_confirm event handled after the turn. */
  const origin = new Map<string, string>();
  const queues = new Map<string, Promise<void>>();
  const inFlight = new Set<Promise<unknown>>();

  function clientFor(owner: string): PresenceClient {
    let client = clients.get(owner);
    if (!client) {
      const token = store.keyOf(owner);
      o.onSecret?.(token);
      client = createPresenceClient({ ...clientOptions, token });
      clients.set(owner, client);
    }
    return client;
  }

  async function say(chatId: string, text: string) {
    for (const part of splitMessage(text, port.maxLength)) await port.send(chatId, part);
  }

  /** A linked user writing in a private chat: that chat is where unprompted news goes. */
  async function rememberHome(user: ChatUser, chatId: string, ctx: TextContext) {
    const owner = userKey(user);
    if (ctx.isPrivate && store.get(owner)) await store.setHomeChat(owner, chatId);
  }

  async function homeChat(owner: string, link: LinkRecord): Promise<string> {
    if (link.home_chat) return link.home_chat;
    const chat = await port.privateChat(link.user_id);
    await store.setHomeChat(owner, chat);
    return chat;
  }

  /** The key stopped working: forget the user; tell them unless the caller's reply does. */
  async function revoked(owner: string, { notify = true, chatId }: { notify?: boolean; chatId?: string } = {}) {
    const link = await store.unlink(owner);
    if (!link) return;
    void feeds.stop(owner);
    clients.delete(owner);
    log('info', 'unlinked a user whose key no longer works', { user: owner, key_id: link.key_id });
    if (!notify) return;
    try {
      await say(chatId ?? (await homeChat(owner, link)), REVOKED);
    } catch (e) {
      log('warn', 'could not tell a user about their revoked key', { user: owner, error: String(e) });
    }
  }

  const cards = createCards({ store, port, clientFor, now, log, revoked: (owner) => revoked(owner) });

  async function handleEvent(owner: string, event: PresenceEvent) {
    const link = store.get(owner);
    if (!link) return;
    if (event.type === 'needs_confirm') {
      const d = event.data;
      if (store.card(owner, d.confirm_id)) return;
      const turn = activeTurn.get(owner);
      const chat = origin.get(d.confirm_id) ?? turn?.chatId ?? (await homeChat(owner, link));
      origin.delete(d.confirm_id);
      await turn?.done; // the reply that explains the hold comes first, then its card
      await cards.show(owner, chat, {
        confirm_id: d.confirm_id,
        summary: d.summary,
        amount: d.amount,
        value_usd: d.value_usd,
        expires_at: d.expires_at,
        timeout_s: d.timeout_s,
      });
    } else if (event.type === 'confirm') await cards.retire(owner, event.data);
    else if (event.type === 'message') await say(await homeChat(owner, link), event.data.text);
    // tx and memory events need no words: the turn or the card already said it.
  }

  const feeds = createEventFeeds({
    store,
    clientFor,
    handle: handleEvent,
    revoked: (owner) => revoked(owner),
    log,
    ...(o.events?.reconnect ? { reconnect: o.events.reconnect } : {}),
    ...(o.events?.restartMs !== undefined ? { restartMs: o.events.restartMs } : {}),
  });

  /** One turn at a time per user, in arrival order (the server keeps the same order). */
  function serial(owner: string, task: () => Promise<void>): Promise<void> {
    const next = (queues.get(owner) ?? Promise.resolve()).then(task);
    const tail = next.catch(() => undefined);
    queues.set(owner, tail);
    void tail.then(() => {
      if (queues.get(owner) === tail) queues.delete(owner);
    });
    return next;
  }

  async function relay(user: ChatUser, chatId: string, text: string, source?: MessageRef) {
    const owner = userKey(user);
    const link = store.get(owner);
    if (!link) return say(chatId, NOT_LINKED);
    return serial(owner, async () => {
      let finished = () => {};
      const turn = { chatId, done: new Promise<void>((resolve) => (finished = resolve)) };
      activeTurn.set(owner, turn);
      const reply = createStreamReply(port, chatId, pacer);
      let final: string | undefined;
      let failure: unknown = null;
      try {
        const stream = clientFor(owner).messages.send(
          { text, stream: true, allow_act: link.scopes.includes('wallet:act') },
          {
            // A stalled stream must not hold the user's queue (or a card waiting for this reply) for ever.
            idleTimeoutMs: TURN_IDLE_MS,
            ...(source ? { idempotencyKey: `${port.surface}:${source.chatId}:${source.messageId}` } : {}),
          },
        );
        for await (const ev of stream) {
          if (ev.type === 'token') reply.push(ev.text);
          else if (ev.type === 'needs_confirm') {
            origin.set(ev.confirm_id, chatId);
            if (origin.size > MAX_ORIGINS) origin.delete(origin.keys().next().value as string);
          } else if (ev.type === 'done') final = ev.result.reply;
        }
      } catch (e) {
        failure = e;
      }
      try {
        if (failure === null) await reply.finish(final);
        else if (isRevoked(failure)) await revoked(owner, { chatId });
        else {
          if (!isUnavailable(failure)) log('warn', 'a relayed turn failed', { user: owner, error: String(failure) });
          await reply.fail(describeError(failure));
        }
      } catch (e) {
        log('warn', 'could not show a reply', { user: owner, error: String(e) });
      } finally {
        if (activeTurn.get(owner) === turn) activeTurn.delete(owner);
        finished();
      }
    });
  }

  /** Runs `fn` for a linked user; maps failures to one sentence (and a 401 to unlinking). */
  async function asLinked(user: ChatUser, fn: (owner: string, client: PresenceClient) => Promise<CommandReply>): Promise<CommandReply> {
    const owner = userKey(user);
    if (!store.get(owner)) return { text: NOT_LINKED };
    try {
      return await fn(owner, clientFor(owner));
    } catch (e) {
      if (isRevoked(e)) {
        await revoked(owner, { notify: false });
        return { text: REVOKED };
      }
      return { text: describeError(e) };
    }
  }

  /** The name sent when redeeming: one line, within the server's 64 characters. */
  const redeemName = (user: ChatUser, prefix = '') => `${prefix}${user.name.replace(/\s+/g, ' ').trim() || user.id}`.slice(0, 64);

  /**
   * A code seen outside a private chat: deleting the message (or asking for it) does not
   * unsee it, and the code would stay good until it expires. So it is spent here: redeemed,
   * and the key it made revoked at once. The code is never logged (a network error names the
   * request path, which holds it, so errors are logged by type only).
   */
  async function burn(user: ChatUser, code: string): Promise<SeenCodeOutcome> {
    const owner = userKey(user);
    let r: RedeemLinkReturnType;
    try {
      // Named so an admin reading the key list sees why a revoked key is there.
      r = await anonymous.links.redeem(code, { surface: port.surface, user_id: user.id, name: redeemName(user, 'voided-') });
    } catch (e) {
      const type = problemType(e);
      if (type === 'not_found' || type === 'invalid_request') return { kind: 'gone' };
      log('warn', 'could not void a link code seen outside a private chat', {
        user: owner,
        error: type ?? (e instanceof Error ? e.name : 'unknown'),
      });
      return { kind: 'failed', reason: describeError(e) };
    }
    o.onSecret?.(r.key);
    // A 401 on a retry means an earlier attempt revoked it and its answer was lost.
    const revoked = await createPresenceClient({ ...clientOptions, token: r.key })
      .keys.revokeSelf({ retries: 2 })
      .then(
        () => true,
        (e: unknown) => isRevoked(e),
      );
    if (revoked) log('info', 'voided a link code seen outside a private chat', { user: owner, key_id: r.key_id });
    else log('warn', 'voided a link code seen outside a private chat, but could not revoke its key', { user: owner, key_id: r.key_id });
    return { kind: 'voided', key_id: r.key_id, revoked };
  }

  async function link(user: ChatUser, chatId: string, code: string, ctx: TextContext): Promise<CommandReply> {
    const owner = userKey(user);
    // First, so a code typed in a group is voided and never stays there, whoever sent it.
    if (!ctx.isPrivate && !ctx.discreet) {
      if (!code) return { text: LINK_IN_PRIVATE };
      const outcome = await burn(user, code);
      return { text: seenCodeText(outcome, false), removeSource: true, removedText: seenCodeText(outcome, true) };
    }
    const existing = store.get(owner);
    if (existing) return { text: alreadyLinkedText(existing) };
    if (!code) return { text: LINK_USAGE };
    try {
      const r = await anonymous.links.redeem(code, { surface: port.surface, user_id: user.id, name: redeemName(user) });
      o.onSecret?.(r.key);
      await store.link(
        owner,
        {
          surface: port.surface,
          user_id: user.id,
          name: user.name,
          account: r.account,
          key_id: r.key_id,
          key_name: r.name,
          scopes: r.scopes,
          home_chat: ctx.isPrivate ? chatId : null,
          linked_at: new Date(now()).toISOString(),
          // Where the account's events stood at redeem: the first subscription replays from
          // here, so nothing between redeeming and subscribing is missed (a live start would).
          last_event_id: r.last_event_id,
        },
        r.key,
      );
      feeds.start(owner);
      log('info', 'linked a user', { user: owner, account: r.account, key_id: r.key_id });
      return { text: linkedText(r), removeSource: true };
    } catch (e) {
      const type = problemType(e);
      if (type === 'not_found' || type === 'invalid_request') return { text: CODE_GONE };
      return { text: describeError(e) };
    }
  }

  async function command(user: ChatUser, chatId: string, name: string, args: string, ctx: TextContext): Promise<CommandReply> {
    const owner = userKey(user);
    await rememberHome(user, chatId, ctx);
    switch (name) {
      case 'start':
      case 'help':
        return { text: helpText(store.get(owner)) };
      case 'link':
        return link(user, chatId, args.split(/\s+/)[0] ?? '', ctx);
      case 'unlink': {
        // Retire the key on the server first, so an unlinked chat leaves no working key behind.
        const revoked = store.get(owner)
          ? await clientFor(owner)
              .keys.revokeSelf({ retries: 1 })
              .then(
                () => true,
                () => false,
              )
          : false;
        const gone = await store.unlink(owner);
        if (!gone) return { text: NOT_LINKED };
        await feeds.stop(owner);
        clients.delete(owner);
        return { text: unlinkedText(gone, revoked) };
      }
      case 'wallet':
        return asLinked(user, async (_owner, client) => ({ text: walletText(await client.wallet.get()) }));
      case 'pending':
        return asLinked(user, async (owner, client) => {
          const list = await client.confirm.list({ status: 'held' });
          return {
            text: pendingText(list, now()),
            after: async () => {
              for (const c of list.confirmations) {
                await cards.show(owner, chatId, { ...c, value_usd: null, timeout_s: null }, { again: true });
              }
            },
          };
        });
      default:
        return { text: unknownCommandText(name) };
    }
  }

  return {
    say,
    command,
    /** A button press: answer the platform with `toast` at once, then await `run` if present. */
    press: cards.press,

    /** Text typed in a chat: a command, or a message for the presence. */
    async text(user: ChatUser, chatId: string, text: string, ctx: TextContext) {
      const cmd = parseCommand(text);
      if (!cmd) {
        await rememberHome(user, chatId, ctx);
        return relay(user, chatId, text, ctx.source);
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

    /** Starts the events feed of every user linked on this platform. */
    start() {
      for (const l of store.list(port.surface)) feeds.start(userKey({ surface: l.surface, id: l.user_id }));
    },

    /** Waits for work in flight, then stops the feeds. The store stays open (it may be shared). */
    async stop() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await feeds.stopAll();
    },
  };
}
