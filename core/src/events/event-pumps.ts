// Live delivery when several servers append to one events table: per open channel (an
// account's live events) a pump reads the table after the last id it delivered whenever it
// is woken — by an append on this server, by another server's notification, or by a resync
// after the listening connection was re-established — and hands each event to the local
// subscribers in id order. The table is the truth and the wake-up only a hint, so a lost or
// duplicated notification costs a read, never an event: ids are delivered once each, in
// order, with no gap (appends commit in id order, see the store port).
import type { EventType } from '@presence/protocol';
import type { EventStore, FeedEvent } from './feed';

const PAGE = 500;
const RETRY_MS = 500;

type Pump = {
  /** The last id delivered; set by the first read, before any subscriber reads the store. */
  last: number;
  ready: Promise<void>;
  running: boolean;
  again: boolean;
  closed: boolean;
  retry: NodeJS.Timeout | undefined;
};

export type EventPumps = ReturnType<typeof createEventPumps>;

export function createEventPumps({
  store,
  deliver,
  onError = () => undefined,
}: {
  store: () => EventStore;
  deliver: (accountId: string, e: FeedEvent) => void;
  onError?: (e: unknown) => void;
}) {
  const pumps = new Map<string, Pump>();

  async function drain(accountId: string, p: Pump) {
    if (p.running) {
      p.again = true;
      return;
    }
    p.running = true;
    try {
      await p.ready;
      do {
        p.again = false;
        for (;;) {
          const page = await store().eventsAfter(accountId, p.last, PAGE);
          for (const s of page) {
            if (p.closed) return;
            if (s.id <= p.last) continue;
            p.last = s.id;
            deliver(accountId, { id: s.id, type: s.type as EventType, data: s.data });
          }
          if (page.length < PAGE) break;
        }
      } while (p.again && !p.closed);
    } catch (e) {
      // The store is away: try again shortly (the subscribers keep waiting, nothing is lost).
      onError(e);
      if (!p.closed && !p.retry) {
        p.retry = setTimeout(() => {
          p.retry = undefined;
          void drain(accountId, p);
        }, RETRY_MS);
        p.retry.unref();
      }
    } finally {
      p.running = false;
    }
  }

  return {
    /**
     * The channel's pump, made on first use; resolves once it knows where it starts, so a
     * subscriber that reads the store after this misses nothing the pump will not deliver.
     */
    open(accountId: string): Promise<void> {
      let p = pumps.get(accountId);
      if (!p) {
        const pump: Pump = { last: 0, ready: Promise.resolve(), running: false, again: false, closed: false, retry: undefined };
        pump.ready = (async () => {
          for (;;) {
            try {
              pump.last = (await store().eventBounds(accountId)).latest;
              return;
            } catch (e) {
              onError(e);
              if (pump.closed) return;
              await new Promise((r) => setTimeout(r, RETRY_MS).unref());
            }
          }
        })();
        pumps.set(accountId, pump);
        p = pump;
      }
      return p.ready;
    },
    /** Something new may be in the table for this account. */
    wake(accountId: string) {
      const p = pumps.get(accountId);
      if (p) void drain(accountId, p);
    },
    /** Notifications may have been lost: every open channel reads the table. */
    wakeAll() {
      for (const [accountId, p] of pumps) void drain(accountId, p);
    },
    close(accountId: string) {
      const p = pumps.get(accountId);
      if (!p) return;
      p.closed = true;
      clearTimeout(p.retry);
      pumps.delete(accountId);
    },
    get size() {
      return pumps.size;
    },
  };
}
