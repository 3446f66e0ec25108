// The per-account events log: durable append with increasing ids, fan-out to live
// subscribers, and subscriptions that replay from a Last-Event-ID and then continue live
// with no gap and no duplicate at the switch. Each subscriber has a bounded queue: a live one
// that falls too far behind is ended (it reconnects with Last-Event-ID and loses nothing) so a
// slow consumer never blocks others or grows memory without bound; during a replay a full
// queue is dropped instead and the replay reads on from the store until it has caught up.
// With a `wake` source (several servers on one database) live events do not go straight from
// `emit` to the listeners: a pump per open channel reads them from the store on each wake-up
// (event-pumps.ts), so events appended on any server reach every server's streams. Test keys'
// events live in one server's memory and stay on the direct path (per server).
import type { EventType, TypedEventData } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import type { EventsWake } from '../cluster/cluster-port';
import { createLocalLocks } from '../concurrency/cluster-locks';
import { createLockBatches } from '../concurrency/lock-batches';
import type { Caller } from '../keys/caller';
import type { ByKind } from '../store/overlay-store';
import type { StoreTx } from '../store/store-port';
import { createEventChannels, type EventChannels } from './event-channels';
import { subscribeChannel } from './event-subscription';
import type { EventStore, FeedEvent, Subscription } from './feed';

export type { EventStore, FeedEvent, FeedItem, Subscription } from './feed';

/** A unit of work an event is appended in: it is announced once the unit commits. */
export type EventUnit = Pick<StoreTx, 'appendEvent' | 'afterCommit'>;

/** What `emit` answers: the event, which a live caller's always is; a test key's may be null (see `emit`). */
export type Announced<C extends Caller> = C['kind'] extends 'live' ? FeedEvent : FeedEvent | null;
/**
 * What an emit takes after the account and key kind: a type and its payload as the protocol
 * defines it (type → payload), less the `at` the log stamps. A payload that drifts from the
 * protocol's schema (a renamed, missing or extra field) does not compile.
 */
export type Emitted = { [E in TypedEventData as E['type']]: [type: E['type'], data: Omit<E['data'], 'at'>] }[EventType];

export type EventsRetention = { maxEvents: number; maxAgeMs: number };
export const defaultRetention: EventsRetention = { maxEvents: 10_000, maxAgeMs: 7 * 24 * 3600_000 };

/** An append on the store itself: it has committed when it resolves, so what follows it runs at once. */
const alone = (store: EventStore): EventUnit => ({ appendEvent: store.appendEvent, afterCommit: (fn) => fn() });
/** What a test key's writes would announce, and its channel never carries (see `emit`). */
const NOT_FOR_TEST_KEYS: ReadonlySet<EventType> = new Set(['memory']);

/** An event as the store keeps it, stamped with the time it is appended (in its data too, as streams show it). */
const stamped = ([type, data]: Emitted, now: number) => ({ type, data: { ...data, at: iso(now) }, at: now });

type Queued = { caller: Caller; event: Emitted };
/**
 * `emit` for events that may be appended together: what arrives for a channel while its
 * previous batch is being appended goes in the next batch, appended in one unit of work of
 * its own. On PostgreSQL one account's appends queue on its event counter row, a synced
 * commit each; a batch pays one. Not for a caller inside a unit of work: the batch commits on
 * its own, and would wait for the row that caller holds (use `emitIn`).
 */
function createBatchedAppends({
  storeFor,
  clock,
  channels: { pumped, lock, channel },
  appendIn,
  announce,
}: {
  storeFor: ByKind<EventStore>;
  clock: Clock;
  channels: EventChannels;
  /** One append on its own, announced after its commit. */
  appendIn: (unit: EventUnit, caller: Caller, event: Emitted) => Promise<FeedEvent>;
  /** What follows a batch's commit, its events in id order. */
  announce: (caller: Caller, es: readonly FeedEvent[]) => void;
}) {
  return createLockBatches<Queued, FeedEvent>(createLocalLocks(), async (batch) => {
    const { caller } = (batch[0] as (typeof batch)[number]).item;
    const store = storeFor(caller.kind);
    const appendAll = async (): Promise<FeedEvent[]> => {
      if (batch.length === 1) return [await appendIn(alone(store), caller, (batch[0] as (typeof batch)[number]).item.event)];
      return store.atomically(async (tx) => {
        // Issued at once: in a transaction the statements are pipelined, and run in this order.
        const stored = await Promise.all(batch.map(({ item: { event } }) => tx.appendEvent(caller.accountId, stamped(event, clock.now()))));
        const es = stored.map((e, i): FeedEvent => ({ id: e.id, type: (batch[i] as (typeof batch)[number]).item.event[0], data: e.data }));
        tx.afterCommit(() =>
          announce(
            caller,
            [...es].sort((x, y) => x.id - y.id),
          ),
        );
        return es;
      });
    };
    // Under the channel's lock only where this server delivers (as in `emit`).
    const events = pumped(caller) ? await appendAll() : await lock(channel(caller), appendAll);
    for (const [i, e] of events.entries()) batch[i]?.resolve(e);
  });
}

export type EventsLog = ReturnType<typeof createEventsLog>;

/** What createEventsLog is built from. */
type EventsLogDeps = {
  storeFor: ByKind<EventStore>;
  clock: Clock;
  retention?: EventsRetention;
  highWaterMark?: number;
  /** Wake-ups from the other servers sharing the store; absent, live events fan out in-process. */
  wake?: EventsWake;
  /** Work nobody awaits that failed: a pump's read (it retries by itself), a prune (the next one tries again). */
  onError?: (e: unknown) => void;
  /** Told of each event once it is committed (counted, sequenced for the surfaces): never of one rolled back. */
  announced?: (caller: Caller, type: EventType) => void;
};

export function createEventsLog({
  storeFor,
  clock,
  retention = defaultRetention,
  highWaterMark = 1_000,
  wake,
  onError = () => undefined,
  announced,
}: EventsLogDeps) {
  const channels = createEventChannels({ storeFor, wake, onError });
  const { channel, listeners, lock, deliver, pumps, pumped, close } = channels;

  /**
   * What follows an append once it is committed (and only then: a unit that rolls back
   * announces nothing, and no stream sees an id that was not committed). Pumped, this server's
   * streams are woken at once rather than by the notification's round trip; otherwise the
   * event goes straight to the listeners, in id order under the channel's lock.
   */
  const announce = (caller: Caller, es: readonly FeedEvent[]) => {
    if (pumped(caller)) pumps?.wake(caller.accountId);
    else for (const e of es) deliver(channel(caller), e);
    for (const e of es) {
      announced?.(caller, e.type);
      // Not awaited: retention is never the writer's wait; a failed prune is reported, and the
      // next thousandth event tries again.
      if (e.id % 1_000 === 0) void prune(caller).catch(onError);
    }
  };

  /** One append in `unit`, announced after its commit. */
  const appendIn = async (unit: EventUnit, caller: Caller, event: Emitted): Promise<FeedEvent> => {
    const stored = await unit.appendEvent(caller.accountId, stamped(event, clock.now()));
    const e: FeedEvent = { id: stored.id, type: event[0], data: stored.data };
    unit.afterCommit(() => announce(caller, [e]));
    return e;
  };

  /**
   * Appends in `unit` (the caller's unit of work; or the store itself, where the append commits
   * alone) and announces once that commits. Answers null for one a test key's channel never
   * carries: a test key's writes are not broadcast (DESIGN.md), not even on its own stream,
   * which carries only what its simulated actions lead to (holds, their answers, what the
   * presence says).
   */
  async function emitIn<C extends Caller>(unit: EventUnit | null, caller: C, event: Emitted): Promise<Announced<C>> {
    if (caller.kind === 'test' && NOT_FOR_TEST_KEYS.has(event[0])) return null as Announced<C>;
    const on = unit ?? alone(storeFor(caller.kind));
    // Delivered here: append and deliver under one lock so listeners see ids in order. Pumped:
    // the streams read the store in id order, and the account's counter row already orders
    // appends; a lock here as well would deadlock with it (a unit of work holding that row, as
    // a change of the memory count does, waits for the lock its blocked neighbour holds).
    return (pumped(caller) ? appendIn(on, caller, event) : lock(channel(caller), () => appendIn(on, caller, event))) as Promise<
      Announced<C>
    >;
  }

  const together = createBatchedAppends({ storeFor, clock, channels, appendIn, announce });

  function prune(caller: Caller) {
    return storeFor(caller.kind).pruneEvents(caller.accountId, retention.maxEvents, clock.now() - retention.maxAgeMs);
  }

  return {
    /** Appends an event on its own (it commits alone) and announces it. */
    emit: <C extends Caller>(caller: C, ...event: Emitted): Promise<Announced<C>> => emitIn(null, caller, event),
    /** Appends an event in the caller's unit of work; it is announced once that unit commits. */
    emitIn: <C extends Caller>(unit: EventUnit, caller: C, ...event: Emitted): Promise<Announced<C>> => emitIn(unit, caller, event),
    emitTogether: (caller: Caller, ...event: Emitted): Promise<FeedEvent> => together(channel(caller), { caller, event }),
    /**
     * afterId undefined: live only. A number: replay everything after it, then live.
     * `accept` filters by type (per-scope visibility) without affecting ids.
     */
    subscribe: (caller: Caller, afterId: number | undefined, accept: (t: EventType) => boolean): Subscription =>
      subscribeChannel({ channels, storeFor, highWaterMark }, caller, afterId, accept),
    prune,
    /** Retention by age across accounts (upkeep): one set-based prune of the live store. */
    pruneStale: () => storeFor('live').pruneEventsOlderThan(clock.now() - retention.maxAgeMs),
    bounds: (caller: Caller) => storeFor(caller.kind).eventBounds(caller.accountId),
    listenerCount: (caller: Caller) => listeners.get(channel(caller))?.size ?? 0,
    /** Stops listening for other servers' wake-ups. */
    close,
  };
}
