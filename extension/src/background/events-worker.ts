// The background worker's logic, with every browser API passed in so tests can run it
// against a real server with stubbed chrome.* calls.
//
// One events stream per linked key. It resumes after the cursor persisted in storage (so a
// service-worker restart, or the browser's, continues where it left off), keeps the badge
// equal to the number of held confirmations, raises system notifications for needs_confirm
// and for unprompted `message` events, and tells open pages what arrived. `ensure()` is
// idempotent and cheap: the alarm calls it every 30 s, which also wakes a worker that
// Chromium stopped while idle.
import {
  type EventsSubscription,
  PresenceApiError,
  type PresenceClient,
  type PresenceEvent,
  readableAmounts,
  readableSummary,
} from '@presence/client';
import type { EventBroadcast } from '../lib/runtime-messages';
import { type EventsCursor, isLinked, type LinkedSettings, type Settings } from '../lib/settings';

export type Notification = { id: string; title: string; message: string };

export type WorkerDeps = {
  loadSettings(): Promise<Settings>;
  loadCursor(): Promise<EventsCursor | undefined>;
  saveCursor(cursor: EventsCursor): Promise<void>;
  createClient(settings: LinkedSettings): PresenceClient;
  /** `''` clears the badge; `'!'` marks a key the server refused. */
  setBadge(text: string, title: string): Promise<void>;
  notify(n: Notification): Promise<void>;
  clearNotification(id: string): Promise<void>;
  broadcast(message: EventBroadcast): void;
  now?(): number;
  log?(message: string, error?: unknown): void;
  /** Reconnect backoff for the stream (tests shorten it). */
  reconnect?: { baseDelayMs?: number; maxDelayMs?: number };
};

/** Messages older than this when they arrive (e.g. replayed after a long time offline) stay in the thread without a notification. */
export const MESSAGE_NOTIFY_MAX_AGE_MS = 60 * 60 * 1000;

export type EventsWorker = ReturnType<typeof createEventsWorker>;

type Running = { linkedAt: number; key: string; serverUrl: string; sub: EventsSubscription; done: Promise<void> };

export function createEventsWorker(deps: WorkerDeps) {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? (() => undefined);
  let running: Running | null = null;
  /** The link whose key the server refused: not retried until the settings change. */
  let rejectedLinkedAt: number | null = null;
  let refreshing: Promise<void> | null = null;
  let refreshAgain = false;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  // ensure() and restart() run one at a time: at start-up Chromium may deliver onInstalled or
  // onStartup, the alarm and a storage change together, and two overlapping calls would
  // otherwise both see "not running" and open two streams.
  let queue: Promise<void> = Promise.resolve();
  const serial = (fn: () => Promise<void>): Promise<void> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const sameLink = (r: Running, s: LinkedSettings) => r.linkedAt === s.linkedAt && r.key === s.key && r.serverUrl === s.serverUrl;

  /** Starts the stream if linked and not already running for the current link; stops a stale one. */
  const ensure = (): Promise<void> => serial(ensureNow);

  async function ensureNow(): Promise<void> {
    const settings = await deps.loadSettings();
    if (!isLinked(settings)) {
      stop();
      await deps.setBadge('', 'Presence: not linked. Open Options to link.');
      return;
    }
    if (running && sameLink(running, settings)) return;
    stop();
    if (rejectedLinkedAt === settings.linkedAt) return;
    await start(settings);
  }

  async function start(settings: LinkedSettings): Promise<void> {
    const client = deps.createClient(settings);
    const cursor = await deps.loadCursor();
    // A link made with a code starts where its redeem answered (the options page saved that
    // cursor), so nothing between redeeming and this first connection is lost. Without a cursor
    // for this link (a key typed in) it replays everything the server keeps (0); notifications
    // below skip what happened before linking.
    const lastEventId = cursor && cursor.linkedAt === settings.linkedAt ? cursor.lastEventId : 0;
    if (!cursor || cursor.linkedAt !== settings.linkedAt) await deps.saveCursor({ linkedAt: settings.linkedAt, lastEventId });
    const sub = client.events.subscribe({
      lastEventId,
      reconnect: deps.reconnect ?? {},
      onOpen: () => {
        void refreshBadge();
      },
      onReconnect: ({ attempt, delayMs, error }) => log(`events: reconnecting (attempt ${attempt}, in ${delayMs} ms)`, error),
    });
    const r: Running = { linkedAt: settings.linkedAt, key: settings.key, serverUrl: settings.serverUrl, sub, done: Promise.resolve() };
    running = r;
    r.done = consume(r, settings);
  }

  async function consume(r: Running, settings: LinkedSettings): Promise<void> {
    try {
      for await (const item of r.sub) {
        if (running !== r) return;
        if (item.type === 'gap') {
          log(`events: the server no longer keeps events before ${item.data.oldest_id}`);
          void refreshBadge();
          continue;
        }
        if (item.type === 'unrecognized') {
          // Newer than this extension, or malformed: nothing to show, but the cursor moves past it.
          log(`events: skipped event ${item.id ?? '(no id)'} (${item.event}): ${item.reason}`);
          if (item.id !== undefined) await deps.saveCursor({ linkedAt: settings.linkedAt, lastEventId: item.id });
          continue;
        }
        try {
          await handle(item, settings);
        } catch (e) {
          log(`events: could not handle event ${item.id} (${item.type})`, e); // e.g. a notification refused: keep the stream
        }
        await deps.saveCursor({ linkedAt: settings.linkedAt, lastEventId: item.id });
      }
    } catch (e) {
      if (running !== r) return;
      log('events: the stream ended', e);
      if (e instanceof PresenceApiError && (e.type === 'auth' || e.type === 'scope')) {
        rejectedLinkedAt = settings.linkedAt;
        await deps.setBadge('!', 'Presence: the server refused this extension’s key. Link it again in Options.');
      }
    } finally {
      if (running === r) running = null;
    }
  }

  async function handle(event: PresenceEvent, settings: LinkedSettings): Promise<void> {
    deps.broadcast({ type: 'presence:event', event });
    const at = Date.parse(event.data.at);
    if (event.type === 'needs_confirm') {
      const d = event.data;
      void refreshBadge();
      if (settings.notifyConfirm && Date.parse(d.expires_at) > now() && at >= settings.linkedAt) {
        await deps.notify({
          id: `confirm:${d.confirm_id}`,
          title: 'Presence is waiting for your approval',
          message: `${readableSummary(d.summary)} (${readableAmounts(d.amount)}). Open Presence to approve or deny.`,
        });
      }
    } else if (event.type === 'confirm') {
      void refreshBadge();
      await deps.clearNotification(`confirm:${event.data.confirm_id}`);
    } else if (event.type === 'message') {
      if (settings.notifyMessages && at >= settings.linkedAt && now() - at <= MESSAGE_NOTIFY_MAX_AGE_MS) {
        await deps.notify({ id: `message:${event.id}`, title: settings.presenceName ?? 'Presence', message: event.data.text });
      }
    }
  }

  /** Recounts held confirmations (coalescing overlapping calls) and sets the badge. */
  function refreshBadge(): Promise<void> {
    if (refreshing) {
      refreshAgain = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          refreshAgain = false;
          await countOnce();
        } while (refreshAgain);
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  async function countOnce(): Promise<void> {
    const settings = await deps.loadSettings();
    if (!isLinked(settings)) {
      await deps.setBadge('', 'Presence: not linked. Open Options to link.');
      return;
    }
    try {
      const { confirmations } = await deps.createClient(settings).confirm.list({ status: 'held' });
      const t = now();
      const live = confirmations.filter((c) => Date.parse(c.expires_at) > t);
      const n = live.length;
      await deps.setBadge(n === 0 ? '' : String(n), n === 0 ? 'Presence: nothing waiting' : `Presence: ${n} waiting for approval`);
      // Held actions expire on the server; recount at the next expiry even if no event says so.
      clearTimeout(expiryTimer);
      const next = Math.min(...live.map((c) => Date.parse(c.expires_at)));
      if (Number.isFinite(next)) expiryTimer = setTimeout(() => void refreshBadge(), Math.max(1_000, next - t + 500));
    } catch (e) {
      log('badge: could not count held confirmations', e);
      if (e instanceof PresenceApiError && e.type === 'auth') {
        await deps.setBadge('!', 'Presence: the server refused this extension’s key. Link it again in Options.');
      }
    }
  }

  function stop(): void {
    const r = running;
    running = null;
    r?.sub.close();
    clearTimeout(expiryTimer);
  }

  return {
    ensure,
    /** Settings changed (linked, relinked, unlinked, switches): drop the old stream, forget a refused key, start again. */
    async restart(): Promise<void> {
      await serial(async () => {
        stop();
        rejectedLinkedAt = null;
        await ensureNow();
      });
      await refreshBadge();
    },
    refreshBadge,
    stop,
    /** For tests: the stream loop of the current link, if any. */
    get running(): Promise<void> | null {
      return running?.done ?? null;
    },
    get lastEventId(): number | undefined {
      return running?.sub.lastEventId;
    },
  };
}
