// The server's metrics, in Prometheus form (served by GET /metrics). One registry per app
// instance, never prom-client's global one: a process may hold several apps (tests do). Core
// reports through its metrics port (`core`), the store and chain ports are timed by wrapping
// them (metered-ports.ts), HTTP answers by an onResponse hook.
import type { CoreOptions } from '@presence/core';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { createRequestHistogram } from './request-histogram';

export type CoreMetrics = NonNullable<CoreOptions['metrics']>;
export type Metrics = ReturnType<typeof createMetrics>;

/** Seconds; HTTP answers and chain calls span from sub-millisecond to a receipt wait. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Store writes: an fsync is about a millisecond, a PostgreSQL round trip less. */
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** What core reports through its metrics port, and the webhook backlog its dispatcher reads out. */
function coreMetrics(registers: Registry[]) {
  const events = new Counter({
    name: 'presence_events_appended_total',
    help: 'Events appended to accounts’ logs, by type and key kind (test: a test key’s sandbox)',
    labelNames: ['type', 'mode'] as const,
    registers,
  });
  const intents = new Counter({
    name: 'presence_intents_total',
    help: 'Intents by outcome: done, held (waiting for a yes), blocked (by the spend policy), failed',
    labelNames: ['outcome', 'mode'] as const,
    registers,
  });
  const standing = new Counter({ name: 'presence_standing_fires_total', help: 'Standing intents fired', registers });
  const webhookLatency = new Histogram({
    name: 'presence_webhook_delivery_seconds',
    help: 'Webhook requests by outcome (delivered: a 2xx within the timeout; failed: anything else), timed to the answer',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  let webhookBacklog: () => { id: string; events: number }[] = () => [];
  new Gauge({
    name: 'presence_webhook_backlog_events',
    help: 'Events past the cursor of the 10 webhook endpoints furthest behind, as this server last saw them',
    labelNames: ['webhook'] as const,
    registers,
    collect() {
      this.reset();
      for (const b of webhookBacklog()) this.set({ webhook: b.id }, b.events);
    },
  });
  const webhooksDisabled = new Counter({
    name: 'presence_webhooks_disabled_total',
    help: 'Webhook endpoints disabled by the server: failing (the retry schedule ran out) or key_revoked',
    labelNames: ['reason'] as const,
    registers,
  });
  const core: CoreMetrics = {
    eventAppended: (type, mode) => events.inc({ type, mode }),
    intent: (outcome, mode) => intents.inc({ outcome, mode }),
    standingFired: (count) => standing.inc(count),
    webhookDelivery: (outcome, ms) => webhookLatency.observe({ outcome }, ms / 1000),
    webhookDisabled: (reason) => webhooksDisabled.inc({ reason }),
  };
  return {
    core,
    countWebhookBacklog(source: () => { id: string; events: number }[]) {
      webhookBacklog = source;
    },
  };
}

/** A gauge whose value is read when scraped. */
function gauge(registers: Registry[], name: string, help: string, read: () => number) {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}

export function createMetrics(options: { process?: boolean } = {}) {
  const registry = new Registry();
  const registers = [registry];
  // Process figures (CPU, memory, event-loop lag, handles) for a real server only: their
  // event-loop monitor runs for good, which tests making many apps do not want.
  if (options.process) collectDefaultMetrics({ register: registry });

  /** A histogram of one port's calls by operation and outcome (ok or error), and the function that records a call. */
  const operationTimer = (name: string, help: string, buckets: number[]) => {
    const histogram = new Histogram({ name, help, labelNames: ['operation', 'outcome'] as const, buckets, registers });
    return (operation: string, ok: boolean, seconds: number) => histogram.observe({ operation, outcome: ok ? 'ok' : 'error' }, seconds);
  };

  const http = createRequestHistogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status (streams count until they close)',
    buckets: LATENCY_BUCKETS,
    registers,
  });
  let openStreams = () => 0;
  let streamLimit = () => 0;
  let leads = () => false;
  gauge(registers, 'presence_sse_streams_open', 'Open streaming answers (GET /v1/events and streamed POST /v1/messages)', () =>
    openStreams(),
  );
  // The cap beside the count, so an alert on saturation needs no copy of the setting.
  gauge(registers, 'presence_sse_streams_limit', 'The most streaming answers this server holds open at once (PRESENCE_MAX_STREAMS)', () =>
    streamLimit(),
  );
  // Summed over a deployment's servers it is 1: 0 means the background work (hold expiry,
  // standing intents, recovery) runs nowhere.
  gauge(registers, 'presence_leader', 'Whether this server leads the background work (1) or not (0)', () => (leads() ? 1 : 0));
  const { core, countWebhookBacklog } = coreMetrics(registers);
  const chainCall = operationTimer(
    'presence_chain_rpc_duration_seconds',
    'Time of each chain port call (one or a batch of JSON-RPC requests), by operation and outcome',
    LATENCY_BUCKETS,
  );
  const storeWrite = operationTimer(
    'presence_store_write_duration_seconds',
    'Time of each store write (durable when it resolves), by operation and outcome',
    STORE_BUCKETS,
  );

  return {
    registry,
    core,
    /** One HTTP answer; `route` is the route's pattern (`/v1/memory/:key`), never the raw URL. */
    request(method: string, route: string, status: number, seconds: number) {
      http.observe(method, route, status, seconds);
    },
    chainCall,
    storeWrite,
    /** Where the webhook backlog gauge reads from (core's dispatcher, once core exists). */
    countWebhookBacklog,
    /** Where the open-streams gauges read their values when scraped. */
    countStreams(source: () => number, limit: () => number) {
      openStreams = source;
      streamLimit = limit;
    },
    /** Where the leadership gauge reads whether this server leads, when scraped. */
    watchLeadership(source: () => boolean) {
      leads = source;
    },
  };
}
