// The live side of the events log on this server: a channel per account and key kind, the
// listeners of each (its open subscriptions), a lock per channel, and, with a `wake` source
// (several servers on one database), the pumps that read a live channel's events from the
// store on each wake-up (event-pumps.ts) instead of taking them straight from `emit`.
import type { EventsWake } from '../cluster/cluster-port';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { accountCaller, type Caller } from '../keys/caller';
import type { ByKind } from '../store/overlay-store';
import { createEventPumps } from './event-pumps';
import type { EventStore, FeedEvent } from './feed';

export type EventChannels = ReturnType<typeof createEventChannels>;

export function createEventChannels({
  storeFor,
  wake,
  onError,
}: {
  storeFor: ByKind<EventStore>;
  wake?: EventsWake;
  onError: (e: unknown) => void;
}) {
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
  return {
    channel,
    listeners,
    lock,
    deliver,
    pumps,
    pumped,
    /** Stops listening for other servers' wake-ups. */
    close() {
      unwake?.();
    },
  };
}
