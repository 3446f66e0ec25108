// Wires core's services from its ports. The server calls this once; tests call it with a
// driven clock and a temporary store.
import { createAccountService } from './accounts/account-service';
import type { Clock } from './clock/clock';
import { createEventsLog, defaultRetention, type EventsRetention } from './events/events-log';
import { createIdempotency } from './idempotency/idempotency';
import { createKeyService } from './keys/key-service';
import { createCompactor } from './memory/compactor';
import { createMemoryService } from './memory/memory-service';
import { createPresenceService } from './presence/presence-service';
import { createRateLimiter } from './ratelimit/sliding-window';
import type { StorePort } from './store/store-port';

export type CoreOptions = {
  store: StorePort;
  clock: Clock;
  rateLimit: { limit: number; windowMs: number };
  chainName?: () => string;
  eventsRetention?: EventsRetention;
  sseHighWaterMark?: number;
};

export type Core = ReturnType<typeof createCore>;

export function createCore(o: CoreOptions) {
  const { store, clock } = o;
  const events = createEventsLog({
    store,
    clock,
    retention: o.eventsRetention ?? defaultRetention,
    ...(o.sseHighWaterMark ? { highWaterMark: o.sseHighWaterMark } : {}),
  });
  const keys = createKeyService({ store, clock });
  const memory = createMemoryService({ store, clock, events });
  return {
    clock,
    store,
    events,
    keys,
    memory,
    accounts: createAccountService({ store, clock, keys }),
    presence: createPresenceService({ store, memory, chainName: o.chainName ?? (() => 'devnet') }),
    compactor: createCompactor({ store, clock, events }),
    idempotency: createIdempotency({ store, clock }),
    rateLimiter: createRateLimiter({ ...o.rateLimit, clock }),
    /** Periodic upkeep: retention of events and idempotency answers, idle rate-limit logs. */
    async maintain() {
      for (const a of await store.listAccounts()) await events.prune(a.id, 'live');
      await this.idempotency.prune();
      this.rateLimiter.sweep();
    },
  };
}
