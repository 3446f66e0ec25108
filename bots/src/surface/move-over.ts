// Moving links made before the bot had a surface token over to it: at the first start with
// PRESENCE_SURFACE_TOKEN, each user whose key the bot keeps (sealed) has that key adopted by
// the surface (POST /v1/surface/adopt), then the sealed secret is forgotten. Events the user's
// own feed had not handled yet (the bot was down) are replayed once from the user's stream,
// acting for the key, up to where the surface stream takes over. All of it runs in the user's
// queue of the surface stream, ahead of anything that stream brings for them, so their events
// stay in order and none is shown twice. A link that cannot be moved (the server is away)
// keeps its key and its own feed, and is tried again at the next start.
import type { PresenceClient, PresenceEvent } from '@presence/client';
import { type SurfaceName, userKey } from './chat-port';
import type { LinkStore } from './link-store';
import type { LinkedUsers } from './linked-users';
import type { Log } from './logging';
import type { SurfaceStream } from './surface-stream';

/** How long the one-off replay of a moved user's missed events may take. */
const CATCH_UP_MS = 30_000;

export function moveOverToSurface(o: {
  platform: SurfaceName;
  store: LinkStore;
  client: PresenceClient;
  stream: SurfaceStream;
  users: Pick<LinkedUsers, 'clientFor' | 'forget'>;
  handle(owner: string, event: PresenceEvent): Promise<void>;
  log: Log;
  keepFeed(owner: string): void;
}) {
  const { store, log } = o;
  for (const link of store.list(o.platform)) {
    if (link.sealed_key === undefined) continue;
    const owner = userKey({ surface: link.surface, id: link.user_id });
    void o.stream.enqueue(owner, async () => {
      let upTo: number;
      try {
        const adopted = await o.client.surface.adopt({ key: store.keyOf(owner), surface_user: link.user_id }, { retries: 2 });
        upTo = adopted.last_event_id;
      } catch (e) {
        log('warn', 'could not move a link over to the surface token; it keeps its own key for now', { user: owner, error: String(e) });
        o.keepFeed(owner);
        return;
      }
      await store.dropSecret(owner);
      o.users.forget(owner);
      log('info', 'moved a link over to the surface token (its key secret is forgotten)', { user: owner, key_id: link.key_id });
      const from = store.get(owner)?.last_event_id ?? null;
      if (from === null || from >= upTo) return;
      const sub = o.users.clientFor(owner).events.subscribe({ lastEventId: from, signal: AbortSignal.timeout(CATCH_UP_MS) });
      try {
        for await (const item of sub) {
          if (
            item.type !== 'message' &&
            item.type !== 'needs_confirm' &&
            item.type !== 'confirm' &&
            item.type !== 'tx' &&
            item.type !== 'memory'
          )
            continue;
          if (item.id > upTo) break;
          await o.handle(owner, item);
          await store.setLastEventId(owner, item.id);
          if (item.id >= upTo) break;
        }
      } catch (e) {
        log('warn', 'could not replay the events a moved link missed', { user: owner, error: String(e) });
      } finally {
        sub.close();
      }
    });
  }
}
