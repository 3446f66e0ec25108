// A linked user's standing with Presence: their client (opened once from the sealed key, the
// key registered as a secret so it is never logged), the private chat where unprompted news
// goes, and forgetting them when their key stops working (revoked, or its rotation grace over).
import { createPresenceClient, type PresenceClient, type PresenceClientOptions } from '@presence/client';
import { type ChatPort, type ChatUser, userKey } from './chat-port';
import type { LinkRecord, LinkStore } from './link-store';
import type { Log } from './logging';
import { REVOKED } from './render';

export type LinkedUsers = ReturnType<typeof createLinkedUsers>;

/** What a part of the surface (linking, relaying) is built from: the chat, the link table, what it uses of the linked users, the log. */
export type SurfacePart<Uses extends keyof LinkedUsers> = { port: ChatPort; store: LinkStore; users: Pick<LinkedUsers, Uses>; log: Log };

export function createLinkedUsers(o: {
  port: ChatPort;
  store: LinkStore;
  log: Log;
  clientOptions: PresenceClientOptions;
  /** The bot's surface-token client, when it has one: links without a kept key act through it. */
  surfaceClient?: PresenceClient | undefined;
  onSecret?: (secret: string) => void;
  say(chatId: string, text: string): Promise<void>;
  /** Ends the user's events feed (not awaited from inside the feed that saw the 401). */
  stopFeed(owner: string): Promise<void>;
}) {
  const { port, store, log } = o;
  const clients = new Map<string, PresenceClient>();

  function clientFor(owner: string): PresenceClient {
    let client = clients.get(owner);
    if (!client) {
      const link = store.get(owner);
      if (link && link.sealed_key === undefined) {
        // Linked through the surface token: act for the key by naming it, no secret held.
        if (!o.surfaceClient) throw new Error(`${owner} was linked through a surface token; set PRESENCE_SURFACE_TOKEN`);
        client = o.surfaceClient.as(link.key_id);
      } else {
        const token = store.keyOf(owner);
        o.onSecret?.(token);
        client = createPresenceClient({ ...o.clientOptions, token });
      }
      clients.set(owner, client);
    }
    return client;
  }

  async function homeChat(owner: string, link: LinkRecord): Promise<string> {
    if (link.home_chat) return link.home_chat;
    const chat = await port.privateChat(link.user_id);
    await store.setHomeChat(owner, chat);
    return chat;
  }

  return {
    clientFor,
    homeChat,

    /** A linked user writing in a private chat: that chat is where unprompted news goes. */
    async rememberHome(user: ChatUser, chatId: string, isPrivate: boolean) {
      const owner = userKey(user);
      if (isPrivate && store.get(owner)) await store.setHomeChat(owner, chatId);
    },

    /** Drops the client of a user who is no longer linked (or who moved to the surface token). */
    forget(owner: string) {
      clients.delete(owner);
    },

    /** The key stopped working: forget the user; tell them unless the caller's reply does. */
    async revoked(owner: string, { notify = true, chatId }: { notify?: boolean; chatId?: string } = {}) {
      const link = await store.unlink(owner);
      if (!link) return;
      void o.stopFeed(owner);
      clients.delete(owner);
      log('info', 'unlinked a user whose key no longer works', { user: owner, key_id: link.key_id });
      if (!notify) return;
      try {
        await o.say(chatId ?? (await homeChat(owner, link)), REVOKED);
      } catch (e) {
        log('warn', 'could not tell a user about their revoked key', { user: owner, error: String(e) });
      }
    },
  };
}
