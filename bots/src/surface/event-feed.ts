// One events subscription per linked user, resumed from the id persisted in the link table.
// The SDK's iterator reconnects with Last-Event-ID and hands each id out once; this loop
// handles the event, then records its id, so a restart neither repeats nor drops anything
// (a crash between the two repeats at most the one event, and cards are deduplicated by
// confirm id on top). A new link starts from the id its redeem answered, so what happened
// between redeeming and subscribing is replayed. A record without an id (linked by an older
// bot) subscribes live; the server then opens with an id-only cursor frame, which is recorded
// at once, so a restart (or a stream that fails before the first event) resumes from there
// instead of starting live again. A cursor frame below the recorded id means the server went
// back (restored from a backup): the id is taken down to it, so new events are not skipped.
// A 401 means the key is gone: the user is unlinked.
import type { EventsItem, PresenceClient, PresenceEvent } from '@presence/client';
import { followStream, handleWithRetry, WENT_BACK } from './delivery';
import type { LinkStore } from './link-store';
import type { Log } from './logging';
import { isRevoked } from './problems';

export type EventFeedOptions = {
  store: LinkStore;
  clientFor(owner: string): PresenceClient;
  handle(owner: string, event: PresenceEvent): Promise<void>;
  revoked(owner: string): Promise<void>;
  log: Log;
  /** Reconnect backoff for the SDK iterator. */
  reconnect?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Wait before restarting a subscription that ended with an error other than 401. */
  restartMs?: number;
  /** Attempts per event before it is skipped (a platform that keeps refusing must not stall the feed). */
  handleAttempts?: number;
};

export type EventFeeds = ReturnType<typeof createEventFeeds>;

export function createEventFeeds(o: EventFeedOptions) {
  const running = new Map<string, { stop: AbortController; done: Promise<void> }>();
  const attempts = o.handleAttempts ?? 3;

  /** Handles an item; true when a stop came meanwhile. */
  async function each(owner: string, item: EventsItem, signal: AbortSignal): Promise<boolean> {
    if (item.type === 'gap') {
      o.log('warn', 'events were dropped by the server before we resumed', { user: owner, oldest_id: item.data.oldest_id });
      return false;
    }
    if (item.type === 'unrecognized') {
      // Newer than this bot, or malformed: nothing to show, but it is past us now.
      o.log('warn', 'skipped an event this bot cannot read', { user: owner, event: item.id, type: item.event, reason: item.reason });
      if (item.id !== undefined) await o.store.setLastEventId(owner, item.id);
      return false;
    }
    const handle = () => o.handle(owner, item);
    const outcome = await handleWithRetry({ owner, event: item, handle, attempts, signal, log: o.log, fatal: isRevoked });
    // Recorded even when a stop arrived meanwhile: what was shown must not be shown again.
    if (outcome === 'done') await o.store.setLastEventId(owner, item.id);
    return signal.aborted;
  }

  function open(owner: string, signal: AbortSignal) {
    const link = o.store.get(owner);
    if (!link) return null;
    return o.clientFor(owner).events.subscribe({
      lastEventId: link.last_event_id ?? undefined,
      signal,
      reconnect: o.reconnect,
      // Only reached between events (the iterator is pulled), so it never records past an event still being handled.
      onCursor: (id) => {
        const last = o.store.get(owner)?.last_event_id ?? null;
        // Below the last one handled: the server went back (restored from a backup) and resumes at its newest.
        const back = last !== null && id < last;
        if (back)
          o.log('warn', WENT_BACK, {
            user: owner,
            from: last,
            to: id,
          });
        (back ? o.store.rewindLastEventId(owner, id) : o.store.setLastEventId(owner, id)).catch((e: unknown) =>
          o.log('warn', 'could not save the events cursor', { user: owner, error: String(e) }),
        );
      },
      onReconnect: ({ attempt, delayMs, error }) =>
        o.log('warn', 'events stream dropped; reconnecting', { user: owner, attempt, delayMs, error: error.message }),
    });
  }

  const run = (owner: string, { signal }: AbortController) =>
    followStream({
      signal,
      open: () => open(owner, signal),
      each: (item) => each(owner, item, signal),
      async settle(e) {
        if (!isRevoked(e)) return false;
        await o.revoked(owner);
        return true;
      },
      log: o.log,
      ended: { message: 'events stream ended', fields: { user: owner } },
      restartMs: o.restartMs,
    });

  /** Stops a user's loop; the promise settles when it has ended (never await it from inside `handle`). */
  function stop(owner: string): Promise<void> {
    const r = running.get(owner);
    if (!r) return Promise.resolve();
    running.delete(owner);
    r.stop.abort();
    return r.done;
  }

  return {
    /** Starts the user's subscription unless it runs already. */
    start(owner: string) {
      if (running.has(owner)) return;
      const stop = new AbortController();
      const done = run(owner, stop)
        .catch((e) => o.log('error', 'events loop failed', { user: owner, error: String(e) }))
        .finally(() => {
          if (running.get(owner)?.stop === stop) running.delete(owner);
        });
      running.set(owner, { stop, done });
    },
    stop,
    async stopAll() {
      await Promise.all([...running.keys()].map(stop));
    },
    has: (owner: string) => running.has(owner),
  };
}
