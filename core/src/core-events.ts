// The events log as core wires it: once an event commits it is counted, a live account's takes
// its place in the surface feed, and the account's webhook endpoints are woken. The surface
// service and the webhook dispatcher read the log, so they are made after it and joined to it
// once they exist (`follow`); until then an announcement reaches only the metrics.

import type { Clock } from './clock/clock';
import type { EventsWake } from './cluster/cluster-port';
import { createEventsLog } from './events/events-log';
import type { CoreMetrics } from './metrics/core-metrics';
import type { StoreFor } from './store/overlay-store';
import type { SurfaceService } from './surfaces/surface-service';
import type { WebhookDispatcher } from './webhooks/webhook-dispatcher';

export function createCoreEvents(o: {
  storeFor: StoreFor;
  clock: Clock;
  wake?: EventsWake;
  onError?: (e: unknown) => void;
  metrics?: CoreMetrics;
}) {
  let surfaces: SurfaceService | null = null;
  let dispatcher: WebhookDispatcher | null = null;
  const events = createEventsLog({
    storeFor: o.storeFor,
    clock: o.clock,
    wake: o.wake,
    onError: o.onError,
    announced: (caller, type) => {
      o.metrics?.eventAppended?.(type, caller.kind);
      if (caller.kind === 'live') surfaces?.sequence(caller.accountId);
      void dispatcher?.wake(caller);
    },
  });
  return {
    events,
    /** Joins the surface feed or the webhook dispatcher to what the log announces. */
    follow(by: { surfaces?: SurfaceService; dispatcher?: WebhookDispatcher }) {
      if (by.surfaces) surfaces = by.surfaces;
      if (by.dispatcher) dispatcher = by.dispatcher;
    },
  };
}
