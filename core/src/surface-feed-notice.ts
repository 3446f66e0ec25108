// The surface feed's notice on the events channel. A server that sequences surface-feed entries
// tells the others on the channel every appended event is announced on, naming not an account
// but `surface-feed` (store/postgres/surfaces.ts; account ids are acc_…). The surface feed is
// poked by that notice; the webhook dispatcher, which wakes per account, passes over it.

import type { EventsWake } from './cluster/cluster-port';
import { accountCaller } from './keys/caller';
import { SURFACE_FEED_NOTICE } from './store/surface-store-port';
import type { WebhookDispatcher } from './webhooks/webhook-dispatcher';

/** Another server sequenced entries (its notice), or notices were missed: the feed reads again. */
export function followSurfaceFeed(wake: EventsWake, feed: { poke(): void }) {
  wake.subscribe({
    wake: (accountId) => {
      if (accountId === SURFACE_FEED_NOTICE) feed.poke();
    },
    resync: () => feed.poke(),
  });
}

/**
 * An event appended on another server wakes the account's webhook endpoints (this server's own
 * are told when they are announced); missed notices: endpoints with events past their cursor
 * look again.
 */
export function followAccountEvents(wake: EventsWake, dispatcher: WebhookDispatcher, onError?: (e: unknown) => void) {
  wake.subscribe({
    wake: (accountId) => {
      if (accountId !== SURFACE_FEED_NOTICE) void dispatcher.wake(accountCaller(accountId));
    },
    resync: () => void dispatcher.recover().catch((e: unknown) => onError?.(e)),
  });
}
