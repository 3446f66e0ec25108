// One subscription to a channel of the events log (events-log.ts): a replay from a
// Last-Event-ID read from the store, then live events from the channel's listeners, with no
// gap and no duplicate at the switch. Its queue is bounded: live and too far behind, the
// stream ends (the client reconnects and loses nothing); during the replay a full queue is
// dropped instead and the replay reads on from the store until it has caught up.
import type { EventType } from '@presence/protocol';
import { setOf } from '../collections/set-of';
import type { Caller } from '../keys/caller';
import type { ByKind } from '../store/overlay-store';
import type { EventChannels } from './event-channels';
import type { EventStore, FeedEvent, FeedItem, Subscription } from './feed';

const REPLAY_PAGE = 500;

/**
 * afterId undefined: live only. A number: replay everything after it, then live (one past the
 * newest event: a cursor frame with the newest id first, then live).
 * `accept` filters by type (per-scope visibility) without affecting ids.
 */
export function subscribeChannel(
  { channels, storeFor, highWaterMark }: { channels: EventChannels; storeFor: ByKind<EventStore>; highWaterMark: number },
  caller: Caller,
  afterId: number | undefined,
  accept: (t: EventType) => boolean,
): Subscription {
  const { listeners, pumps, pumped } = channels;
  const ch = channels.channel(caller);
  const queue: FeedEvent[] = [];
  let endReason: Subscription['endReason'] = 'open';
  // While replaying, the store is the source of truth and the queue only has to cover what
  // arrives after the replay's last read. A full queue then drops what it holds and marks
  // itself incomplete (`dropped`) instead of ending the stream: the replay reads on from the
  // store, and only switches to the queue after a read that began with a complete queue.
  let replaying = afterId !== undefined;
  let dropped = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const listener = (e: FeedEvent) => {
    if (endReason !== 'open') return;
    if (queue.length >= highWaterMark) {
      if (replaying) {
        queue.length = 0;
        dropped = true;
        return;
      }
      // Live and too far behind: end after what is queued (contiguous ids), so the client
      // reconnects with the last id it saw and loses nothing.
      endReason = 'overflow';
      detach();
    } else queue.push(e);
    poke();
  };
  const detach = () => {
    const set = listeners.get(ch);
    if (!set?.delete(listener) || set.size > 0) return;
    listeners.delete(ch);
    if (pumped(caller)) pumps?.close(caller.accountId);
  };
  // Listen before replaying: anything appended during the replay is queued, not missed.
  setOf(listeners, ch).add(listener);
  // The pump learns where it starts before this subscriber reads the store (see open()).
  const pumpReady = pumped(caller) ? pumps?.open(caller.accountId) : undefined;

  async function* run(): AsyncGenerator<FeedItem> {
    const es = storeFor(caller.kind);
    if (pumpReady) await pumpReady;
    let last: number;
    if (afterId === undefined) {
      last = (await es.eventBounds(caller.accountId)).latest;
      yield { kind: 'cursor', id: last };
    } else {
      last = afterId;
      const { oldest, latest } = await es.eventBounds(caller.accountId);
      if (oldest !== null && afterId + 1 < oldest) yield { kind: 'gap', oldest_id: oldest };
      // An id this log never reached (a data directory restored from a backup, a test key's
      // log after a restart): waiting for the log to pass it would skip every event up to it,
      // silently. The stream says where the log stands instead, and goes on from there.
      if (afterId > latest) {
        last = latest;
        yield { kind: 'cursor', id: latest };
      }
      for (;;) {
        // Every event appended after this read starts is notified after it, so if nothing
        // was dropped since, the queue holds every id above what the read returns.
        const completeBefore = !dropped;
        const page = await es.eventsAfter(caller.accountId, last, REPLAY_PAGE);
        for (const s of page) {
          if (endReason === 'closed') return;
          last = s.id;
          if (accept(s.type as EventType)) yield { kind: 'event', event: { id: s.id, type: s.type as EventType, data: s.data } };
        }
        if (endReason === 'closed') return;
        if (page.length < REPLAY_PAGE) {
          if (completeBefore && !dropped) break;
          // The queue lost events during that read: start it afresh and read again.
          dropped = false;
          queue.length = 0;
        }
      }
      replaying = false;
    }
    while (endReason === 'open' || queue.length > 0) {
      const e = queue.shift();
      if (!e) {
        await new Promise<void>((r) => {
          wake = r;
        });
        continue;
      }
      if (e.id <= last) continue;
      last = e.id;
      if (accept(e.type)) yield { kind: 'event', event: e };
    }
  }

  const it = run();
  return {
    [Symbol.asyncIterator]: () => it,
    close() {
      if (endReason === 'open') endReason = 'closed';
      queue.length = 0;
      detach();
      poke();
    },
    get endReason() {
      return endReason;
    },
  };
}
