// A resumable iterator over GET /v1/events. Delivery on the wire is at least once; this
// turns it into "each id once, in order" for the caller: it remembers the last id handed
// out, reconnects after any drop with Last-Event-ID (backing off, honouring Retry-After),
// and drops anything at or below that id. A `gap` (the server no longer holds what we asked
// for) is passed through so the caller can resynchronise. 401/403 and other non-retryable
// answers end the iteration with the typed error; aborting ends it quietly.
import { PresenceEvent as PresenceEventSchema } from '@presence/core/schemas';
import type { z } from 'zod';
import { PresenceApiError, PresenceNetworkError, PresenceProtocolError } from './errors';
import type { Http } from './http';
import { backoffDelay, isRetryable } from './retry';
import { streamSse } from './sse-request';

export type PresenceEvent = z.infer<typeof PresenceEventSchema>;
/** The server no longer keeps events after the id we resumed from; the oldest it has is `oldest_id`. */
export type GapEvent = { type: 'gap'; data: { oldest_id: number } };
export type EventsItem = PresenceEvent | GapEvent;

export type ReconnectInfo = { attempt: number; delayMs: number; error: Error };

export type SubscribeOptions = {
  /** Resume after this id (0 replays everything kept). Without it the stream starts live. */
  lastEventId?: number;
  signal?: AbortSignal;
  /** A stream with no byte for this long is treated as dropped. Default 45 s: three missed 15 s heartbeats. */
  idleTimeoutMs?: number;
  /** Time limit for each connection attempt to get its headers. */
  connectTimeoutMs?: number;
  reconnect?: {
    baseDelayMs?: number;
    maxDelayMs?: number;
    /** Consecutive failed reconnects before giving up with the last error. Default: never give up. */
    maxAttempts?: number;
  };
  onOpen?: (info: { lastEventId: number | undefined }) => void;
  onReconnect?: (info: ReconnectInfo) => void;
};

export type EventsSubscription = AsyncIterable<EventsItem> & {
  /** The id of the last event handed to the caller (like EventSource's): persist it to resume later. */
  readonly lastEventId: number | undefined;
  /** Stops the stream; a pending or later `next()` ends the iteration. */
  close(): void;
};

const DEFAULT_IDLE_MS = 45_000;

export function subscribeEvents(http: Http, options: SubscribeOptions = {}): EventsSubscription {
  let lastEventId = options.lastEventId;
  const stop = new AbortController();
  const onCallerAbort = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted) stop.abort(options.signal.reason);
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const signal = stop.signal;
  const backoff = { baseDelayMs: options.reconnect?.baseDelayMs ?? 500, maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000 };
  const maxAttempts = options.reconnect?.maxAttempts ?? Number.POSITIVE_INFINITY;

  async function* run(): AsyncGenerator<EventsItem, void, undefined> {
    let failures = 0;
    let serverRetryMs = 0;
    try {
      while (!signal.aborted) {
        let error: Error;
        try {
          const items = streamSse(
            http,
            {
              method: 'GET',
              path: '/v1/events',
              ...(lastEventId !== undefined ? { headers: { 'last-event-id': String(lastEventId) } } : {}),
            },
            {
              signal,
              retries: 0, // reconnects are ours, so one backoff rule and one onReconnect cover every failure
              idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_MS,
              ...(options.connectTimeoutMs !== undefined ? { timeoutMs: options.connectTimeoutMs } : {}),
              onOpen: () => {
                failures = 0;
                options.onOpen?.({ lastEventId });
              },
            },
          );
          for await (const item of items) {
            if (signal.aborted) return; // closed while the caller held an item: hand out nothing more
            if (item.kind === 'retry') serverRetryMs = item.ms;
            else if (item.kind === 'id') {
              const id = eventId(item.id);
              if (lastEventId === undefined || id > lastEventId) lastEventId = id;
            } else if (item.kind === 'event') {
              if (item.event === 'gap') {
                yield { type: 'gap', data: { oldest_id: Number(parseData(item.data).oldest_id) } };
              } else if (item.event === 'error') {
                // The server's stream failed and it said so; retryable problems mean "reconnect".
                throw new PresenceApiError(parseProblem(item.data));
              } else if (item.id !== undefined) {
                const id = eventId(item.id);
                if (lastEventId !== undefined && id <= lastEventId) continue; // a duplicate after a reconnect
                const parsed = PresenceEventSchema.safeParse({ id, type: item.event, data: parseData(item.data) });
                lastEventId = id;
                // Event types newer than this SDK are skipped, but their id still counts as seen.
                if (parsed.success) yield parsed.data;
              }
            }
          }
          error = new PresenceNetworkError('interrupted', 'GET /v1/events: the server ended the stream');
        } catch (e) {
          if (signal.aborted) return;
          if (!isRetryable(e)) throw e;
          error = e as Error;
        }
        failures++;
        if (failures > maxAttempts) throw error;
        const after = error instanceof PresenceApiError ? error.retryAfter : undefined;
        const delayMs = after !== undefined ? after * 1000 : Math.max(serverRetryMs, backoffDelay(failures - 1, backoff, http.random));
        options.onReconnect?.({ attempt: failures, delayMs, error });
        try {
          await http.sleep(delayMs, signal);
        } catch {
          return;
        }
      }
    } finally {
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  let iterator: AsyncGenerator<EventsItem, void, undefined> | undefined;
  return {
    [Symbol.asyncIterator]() {
      // One stream per subscription: a second loop continues the same one.
      iterator ??= run();
      return iterator;
    },
    get lastEventId() {
      return lastEventId;
    },
    close() {
      stop.abort();
    },
  };
}

function eventId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw new PresenceProtocolError(`GET /v1/events: event id ${JSON.stringify(raw)} is not a number`, 200);
  return Number(raw);
}

function parseData(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {}
  throw new PresenceProtocolError('GET /v1/events: event data is not a JSON object', 200);
}

function parseProblem(raw: string) {
  const d = parseData(raw);
  return {
    ...d,
    type: String(d.type ?? 'internal'),
    title: String(d.title ?? 'Stream error'),
    status: Number(d.status ?? 500),
    detail: String(d.detail ?? 'the events stream failed'),
  };
}
