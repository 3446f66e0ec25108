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
import { setOf } from '../collections/set-of';
import { createLocalLocks } from '../concurrency/cluster-locks';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { createLockBatches } from '../concurrency/lock-batches';
import { accountCaller, type Caller } from '../keys/caller';
import type { ByKind } from '../store/overlay-store';
import type { StorePort, StoreTx } from '../store/store-port';
import { createEventPumps } from './event-pumps';

/** Where events are kept: the live store for live keys, the overlay for test keys (create-core). */
export type EventStore = Pick<
  StorePort,
  'atomically' | 'appendEvent' | 'eventsAfter' | 'eventBounds' | 'pruneEvents' | 'pruneEventsOlderThan'
>;
/** A unit of work an event is appended in: it is announced once the unit commits. */
export type EventUnit = Pick<StoreTx, 'appendEvent' | 'afterCommit'>;

export type FeedEvent = { id: number; type: EventType; data: Record<string, unknown> };
/** What `emit` answers: the event, which a live caller's always is; a test key's may be null (see `emit`). */
export type Announced<C extends Caller> = C['kind'] extends 'live' ? FeedEvent : FeedEvent | null;
/**
 * What an emit takes after the account and key kind: a type and its payload as the protocol
 * defines it (type → payload), less the `at` the log stamps. A payload that drifts from the
 * protocol's schema (a renamed, missing or extra field) does not compile.
 */
export type Emitted = { [E in TypedEventData as E['type']]: [type: E['type'], data: Omit<E['data'], 'at'>] }[EventType];
export type FeedItem =
  | { kind: 'event'; event: FeedEvent }
  | { kind: 'gap'; oldest_id: number }
  /** Where a live-only stream starts, so a client that drops before any event can resume. */
  | { kind: 'cursor'; id: number };

export type Subscription = AsyncIterable<FeedItem> & {
  close(): void;
  /** Why the iterator ended: closed by us, or overflowed because the consumer fell behind. */
  readonly endReason: 'open' | 'closed' | 'overflow';
};

export type EventsRetention = { maxEvents: number; maxAgeMs: number };
export const defaultRetention: EventsRetention = { maxEvents: 10_000, maxAgeMs: 7 * 24 * 3600_000 };

const REPLAY_PAGE = 500;

/** An append on the store itself: it has committed when it resolves, so what follows it runs at once. */
const alone = (store: EventStore): EventUnit => ({ appendEvent: store.appendEvent, afterCommit: (fn) => fn() });
/** What a test key's writes would announce, and its channel never carries (see `emit`). */
const NOT_FOR_TEST_KEYS: ReadonlySet<EventType> = new Set(['memory']);

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
  // A channel per account and key kind: test keys' events never reach live streams, nor live
  // events test ones (each kind's ids are a sequence of their own).
  const channel = ({ accountId, kind }: Caller) => `${kind}:${accountId}`;
  const listeners = new Map<string, Set<(e: FeedEvent) => void>>();
  const lock = createKeyedLock();
  const deliver = (ch: string, e: FeedEvent) => {
    for (const l of listeners.get(ch) ?? []) l(e);
  };
  const pumps = wake
    ? createEventPumps({ store: () => storeFor('live'), deliver: (accountId, e) => deliver(channel(accountCaller(accountId)), e), onError })
    : null;
  const unwake = wake?.subscribe({ wake: (accountId) => pumps?.wake(accountId), resync: () => pumps?.wakeAll() });
  /** Whether this channel's live events come from a pump rather than straight from emit. */
  const pumped = ({ kind }: Caller) => pumps !== null && kind === 'live';

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
  const appendIn = async (unit: EventUnit, caller: Caller, [type, data]: Emitted): Promise<FeedEvent> => {
    const now = clock.now();
    const stored = await unit.appendEvent(caller.accountId, { type, data: { ...data, at: iso(now) }, at: now });
    const e: FeedEvent = { id: stored.id, type, data: stored.data };
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

  type Queued = { caller: Caller; event: Emitted };
  /**
   * `emit` for events that may be appended together: what arrives for a channel while its
   * previous batch is being appended goes in the next batch, appended in one unit of work of
   * its own. On PostgreSQL one account's appends queue on its event counter row, a synced
   * commit each; a batch pays one. Not for a caller inside a unit of work: the batch commits on
   * its own, and would wait for the row that caller holds (use `emitIn`).
   */
  const together = createLockBatches<Queued, FeedEvent>(createLocalLocks(), async (batch) => {
    const { caller } = (batch[0] as (typeof batch)[number]).item;
    const store = storeFor(caller.kind);
    const appendAll = async (): Promise<FeedEvent[]> => {
      if (batch.length === 1) return [await appendIn(alone(store), caller, (batch[0] as (typeof batch)[number]).item.event)];
      return store.atomically(async (tx) => {
        // Issued at once: in a transaction the statements are pipelined, and run in this order.
        const stored = await Promise.all(
          batch.map(({ item: { event } }) => {
            const now = clock.now();
            return tx.appendEvent(caller.accountId, { type: event[0], data: { ...event[1], at: iso(now) }, at: now });
          }),
        );
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

  function prune(caller: Caller) {
    return storeFor(caller.kind).pruneEvents(caller.accountId, retention.maxEvents, clock.now() - retention.maxAgeMs);
  }

  /**
   * afterId undefined: live only. A number: replay everything after it, then live.
   * `accept` filters by type (per-scope visibility) without affecting ids.
   */
  function subscribe(caller: Caller, afterId: number | undefined, accept: (t: EventType) => boolean): Subscription {
    const ch = channel(caller);
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
        const { oldest } = await es.eventBounds(caller.accountId);
        if (oldest !== null && afterId + 1 < oldest) yield { kind: 'gap', oldest_id: oldest };
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

  return {
    /** Appends an event on its own (it commits alone) and announces it. */
    emit: <C extends Caller>(caller: C, ...event: Emitted): Promise<Announced<C>> => emitIn(null, caller, event),
    /** Appends an event in the caller's unit of work; it is announced once that unit commits. */
    emitIn: <C extends Caller>(unit: EventUnit, caller: C, ...event: Emitted): Promise<Announced<C>> => emitIn(unit, caller, event),
    emitTogether: (caller: Caller, ...event: Emitted): Promise<FeedEvent> => together(channel(caller), { caller, event }),
    subscribe,
    prune,
    /** Retention by age across accounts (upkeep): one set-based prune of the live store. */
    pruneStale: () => storeFor('live').pruneEventsOlderThan(clock.now() - retention.maxAgeMs),
    bounds: (caller: Caller) => storeFor(caller.kind).eventBounds(caller.accountId),
    listenerCount: (caller: Caller) => listeners.get(channel(caller))?.size ?? 0,
    /** Stops listening for other servers' wake-ups. */
    close() {
      unwake?.();
    },
  };
}
