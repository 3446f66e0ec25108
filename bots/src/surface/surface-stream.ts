// The bot's one events stream when it runs with a surface token (PRESENCE_SURFACE_TOKEN):
// GET /v1/surface/events carries every linked user's events, whatever their number, over
// one connection per process. Each frame names the linked keys it is for; each key's owner
// (`<platform>:<user id>`) gets it through the handler its platform registered, in a queue of
// its own, so one user's slow chat (Telegram allows one message a second per chat) never
// holds up the others. Per user the account's event id is recorded after handling, and
// anything at or below it is skipped: a restart, a replay or a second consumer repeats
// nothing. The stream's cursor is saved up to the oldest frame still being handled, so a
// crash loses nothing either, and goes back when the server did (surface-cursor.ts): a cursor
// frame below where the subscription stood is a server restored from a backup.
import { type PresenceClient, type PresenceEvent, type SurfaceEventsItem, surfaceEventFor } from '@presence/client';
import type { SurfaceName } from './chat-port';
import { followStream, handleWithRetry, sleep } from './delivery';
import type { LinkStore } from './link-store';
import type { Log } from './logging';
import { createSerial } from './serial';
import { createSurfaceCursor } from './surface-cursor';

export type SurfaceHandlers = {
  event(owner: string, event: PresenceEvent): Promise<void>;
  /** The user's key was revoked (link_revoked): forget them. */
  revoked(owner: string): Promise<void>;
};

export type SurfaceStream = ReturnType<typeof createSurfaceStream>;

/** Frames in flight before the stream stops reading (the server then holds them, not our memory). */
const MAX_IN_FLIGHT = 2_000;
const ATTEMPTS = 3;

export function createSurfaceStream(o: {
  client: PresenceClient;
  store: LinkStore;
  log: Log;
  reconnect?: { baseDelayMs?: number; maxDelayMs?: number };
  restartMs?: number;
  /**
   * Several processes of one bot (PRESENCE_BOTS_DATABASE_URL): only the one holding the lead
   * reads the stream; the others try again every `leadRetryMs` and take over where the cursor
   * and each user's last event id stand.
   */
  lead?: () => Promise<(() => Promise<void>) | null>;
  leadRetryMs?: number;
}) {
  const { store, log } = o;
  const handlers = new Map<SurfaceName, SurfaceHandlers>();
  /** Per owner, their queue. */
  const queues = createSerial<string>();
  const cursor = createSurfaceCursor({ store, log, maxInFlight: MAX_IN_FLIGHT });
  let running: { stop: AbortController; done: Promise<void> } | null = null;

  const handlerOf = (owner: string) => handlers.get(owner.slice(0, owner.indexOf(':')) as SurfaceName);

  /** Runs `task` after the owner's earlier ones; a failure is logged, never blocks the queue. */
  function enqueue(owner: string, task: () => Promise<void>): Promise<void> {
    return queues.run(owner, task).catch((e: unknown) => {
      log('warn', 'handling a surface event failed', { user: owner, error: String(e) });
    });
  }

  async function handleOnce(owner: string, event: PresenceEvent, signal: AbortSignal) {
    const h = handlerOf(owner);
    if (!h) return;
    const wanted = () => {
      const link = store.get(owner);
      return !!link && (link.last_event_id === null || link.last_event_id < event.id);
    };
    const handle = () => h.event(owner, event);
    const from = cursor.epoch();
    const outcome = await handleWithRetry({ owner, event, handle, attempts: ATTEMPTS, signal, log, wanted });
    if (outcome === 'done') await cursor.delivered(owner, event.id, from);
  }

  /** Reads the stream while this process leads (always, with one process). */
  async function run(stop: AbortController) {
    const { signal } = stop;
    if (!o.lead) return consume(signal);
    while (!signal.aborted) {
      const release = await o.lead().catch((e: unknown) => {
        log('warn', "could not ask for the surface stream's lead", { error: String(e) });
        return null;
      });
      if (!release) {
        await sleep(o.leadRetryMs ?? 2_000, signal);
        continue;
      }
      log('info', 'this process now reads the surface stream');
      try {
        await consume(signal);
      } finally {
        await queues.idle();
        await release();
      }
    }
  }

  /** Hands an item to its owners' queues; true when a stop came. */
  async function each(item: SurfaceEventsItem, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return true;
    if (item.type === 'gap') return false;
    if (item.type === 'unrecognized') {
      log('warn', 'skipped a surface event this bot cannot read', { event: item.event, reason: item.reason });
      if (item.id !== undefined) cursor.track(item.id, [], signal);
      return false;
    }
    const tasks: Promise<void>[] = [];
    if (item.type === 'link_revoked') {
      const owner = store.ownerOfKey(item.data.key_id);
      const h = owner ? handlerOf(owner) : undefined;
      if (owner && h) tasks.push(enqueue(owner, () => h.revoked(owner)));
    } else {
      for (const keyId of item.key_ids) {
        const owner = store.ownerOfKey(keyId);
        // Each key its own reading of the event: a message's text redacted where its scopes fall short.
        if (owner && handlerOf(owner)) tasks.push(enqueue(owner, () => handleOnce(owner, surfaceEventFor(item, keyId), signal)));
      }
    }
    cursor.track(item.id, tasks, signal);
    await cursor.room(signal);
    return false;
  }

  function consume(signal: AbortSignal) {
    /** Where the current subscription stands: a cursor frame below it is the server going back. */
    let position: number | undefined;
    const opened = (from: number | undefined) => {
      position = from;
      return from;
    };
    return followStream({
      signal,
      open: () =>
        o.client.surface.events.subscribe({
          lastEventId: opened(store.surfaceCursor()),
          signal,
          reconnect: o.reconnect,
          onCursor: (id) => {
            if (position !== undefined && id < position) cursor.rewind(id, position);
            position = id;
            cursor.track(id, [], signal);
          },
          onReconnect: ({ attempt, delayMs, error }) =>
            log('warn', 'surface events stream dropped; reconnecting', { attempt, delayMs, error: error.message }),
        }),
      each: (item) => {
        if ('id' in item && item.id !== undefined) position = item.id;
        return each(item, signal);
      },
      log,
      ended: { message: 'surface events stream ended' },
      restartMs: o.restartMs,
    });
  }

  return {
    /** A platform's handlers; its users' events go to them. */
    register(platform: SurfaceName, h: SurfaceHandlers) {
      handlers.set(platform, h);
    },
    /** Starts the one subscription (again: no-op). */
    start() {
      if (running) return;
      const stop = new AbortController();
      running = { stop, done: run(stop).catch((e) => log('error', 'surface events loop failed', { error: String(e) })) };
    },
    /** Runs `task` in the owner's queue: before any event handled for them after it. */
    enqueue,
    async stop() {
      const r = running;
      running = null;
      if (!r) return;
      r.stop.abort();
      cursor.release();
      await r.done;
      await queues.idle();
    },
  };
}
