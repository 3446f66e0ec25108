// A resumable iterator over GET /v1/events. Delivery on the wire is at least once; this
// turns it into "each id once, in order" for the caller: it remembers the last id handed
// out, reconnects after any drop with Last-Event-ID (backing off, honouring Retry-After),
// and drops anything at or below that id. A `gap` (the server no longer holds what we asked
// for) is passed through so the caller can resynchronise; a cursor frame (an id alone) moves
// that id, down too when the server's log is behind it. 401/403 and other non-retryable
// answers end the iteration with the typed error; aborting ends it quietly.
//
// Payloads are validated with the protocol's per-type schemas, so callers get a discriminated union
// and never cast. One event this SDK cannot read (a type newer than it, or data that does
// not match) must not end a stream that resumes for ever, so it is handed out as
// `unrecognized` with its id, and the caller decides (log it, count its id, move on).
import { type EventData, type EventType, eventDataSchemas, GapEventData, Problem } from '@presence/protocol';
import type { z } from 'zod';
import { PresenceApiError, PresenceNetworkError, PresenceProtocolError } from './errors';
import type { Http } from './http';
import { backoffDelay, isRetryable } from './retry';
import { streamSse } from './sse-request';

/** The payload of one event type, e.g. `EventData<'needs_confirm'>` (the protocol's). */
export type { EventData };
/** One event from the stream; narrow on `type` and `data` is typed. */
export type PresenceEvent = { [T in EventType]: { id: number; type: T; data: EventData<T> } }[EventType];
/** The event of one type, e.g. `EventOf<'confirm'>`. */
export type EventOf<T extends EventType> = Extract<PresenceEvent, { type: T }>;
/** The server no longer keeps events after the id we resumed from; the oldest it has is `oldest_id`. */
export type GapEvent = { type: 'gap'; data: z.output<typeof GapEventData> };
/**
 * An event this SDK could not read: a type newer than it, or data that does not match the
 * schema. `id` (absent only for a malformed gap) still counts as seen; persist it like any other.
 */
export type UnrecognizedEvent = { type: 'unrecognized'; id: number | undefined; event: string; data: unknown; reason: string };
export type EventsItem = PresenceEvent | GapEvent | UnrecognizedEvent;

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
  /**
   * The server moved the resume point without an event: the id-only frame a live stream
   * (no `lastEventId`) starts with, or, resumed after an id the server's log never reached
   * (it was restored from a backup), its newest id, lower than yours. Persist it as you would
   * an event's id, so a restart resumes from here instead of starting live and missing what
   * happened meanwhile.
   */
  onCursor?: (lastEventId: number) => void;
  onReconnect?: (info: ReconnectInfo) => void;
};

export type EventsSubscription = AsyncIterable<EventsItem> & {
  /** The id of the last event handed to the caller (like EventSource's): persist it to resume later. */
  readonly lastEventId: number | undefined;
  /** Stops the stream; a pending or later `next()` ends the iteration. */
  close(): void;
};

const DEFAULT_IDLE_MS = 45_000;

/** Which stream a resumable subscription reads, and how it types one event (GET /v1/events or the surface's). */
export type StreamShape<T> = {
  path: string;
  query?: Record<string, string | number | undefined>;
  typed(id: number, event: string, raw: string): T | UnrecognizedEvent;
};

const accountEvents: StreamShape<PresenceEvent> = { path: '/v1/events', typed: typedEvent };

export function subscribeEvents(http: Http, options: SubscribeOptions = {}): EventsSubscription {
  return subscribeStream(http, options, accountEvents);
}

/** The resumable loop behind every events stream: reconnects with Last-Event-ID, each id once, in order. */
export function subscribeStream<T>(
  http: Http,
  options: SubscribeOptions,
  shape: StreamShape<T>,
): AsyncIterable<T | GapEvent | UnrecognizedEvent> & { readonly lastEventId: number | undefined; close(): void } {
  type Item = T | GapEvent | UnrecognizedEvent;
  let lastEventId = options.lastEventId;
  const stop = new AbortController();
  const onCallerAbort = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted) stop.abort(options.signal.reason);
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const signal = stop.signal;
  const backoff = { baseDelayMs: options.reconnect?.baseDelayMs ?? 500, maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000 };
  const maxAttempts = options.reconnect?.maxAttempts ?? Number.POSITIVE_INFINITY;

  /** One connection, resuming after the last id handed out. */
  const open = (onOpen: () => void) =>
    streamSse(
      http,
      {
        method: 'GET',
        path: shape.path,
        query: shape.query,
        headers: lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : undefined,
      },
      {
        signal,
        retries: 0, // reconnects are ours, so one backoff rule and one onReconnect cover every failure
        idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_MS,
        timeoutMs: options.connectTimeoutMs,
        onOpen,
      },
    );

  async function* run(): AsyncGenerator<Item, void, undefined> {
    let failures = 0;
    let serverRetryMs = 0;
    try {
      while (!signal.aborted) {
        let error: Error;
        try {
          const items = open(() => {
            failures = 0;
            options.onOpen?.({ lastEventId });
          });
          for await (const item of items) {
            if (signal.aborted) return; // closed while the caller held an item: hand out nothing more
            if (item.kind === 'retry') serverRetryMs = item.ms;
            else if (item.kind === 'id') {
              // Where the server's stream stands: a live-only stream's start, a surface's events
              // passed over, or the newest id of a log that never reached ours (a server restored
              // from a backup). Taken even when lower: kept, ours would drop every event up to it.
              const id = eventId(item.id);
              if (id !== lastEventId) {
                lastEventId = id;
                options.onCursor?.(id);
              }
            } else if (item.kind === 'event') {
              if (item.event === 'gap') {
                yield gapItem(item.data);
              } else if (item.event === 'error') {
                // The server's stream failed and it said so; retryable problems mean "reconnect".
                throw new PresenceApiError(parseProblem(item.data));
              } else if (item.id !== undefined) {
                const id = eventId(item.id);
                if (lastEventId !== undefined && id <= lastEventId) continue; // a duplicate after a reconnect
                lastEventId = id;
                yield shape.typed(id, item.event, item.data);
              }
            }
          }
          error = new PresenceNetworkError('interrupted', `GET ${shape.path}: the server ended the stream`);
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

  let iterator: AsyncGenerator<Item, void, undefined> | undefined;
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

/** A `gap` frame: events the server no longer holds were skipped. */
function gapItem(raw: string): GapEvent | UnrecognizedEvent {
  const data = readData(raw);
  const parsed = GapEventData.safeParse(data.value);
  return parsed.success ? { type: 'gap', data: parsed.data } : unrecognized(undefined, 'gap', data, parsed.error.issues[0]?.message);
}

function eventId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw new PresenceProtocolError(`GET /v1/events: event id ${JSON.stringify(raw)} is not a number`, 200);
  return Number(raw);
}

const isEventType = (name: string): name is EventType => Object.hasOwn(eventDataSchemas, name);

/** The data as JSON, or the raw text when it is not JSON (kept for the caller to log). */
export function readData(raw: string): { ok: boolean; value: unknown } {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false, value: raw };
  }
}

export function unrecognized(
  id: number | undefined,
  event: string,
  data: { ok: boolean; value: unknown },
  why?: string,
): UnrecognizedEvent {
  const reason = !data.ok ? 'the data is not JSON' : (why ?? 'unknown event type');
  return { type: 'unrecognized', id, event, data: data.value, reason };
}

export function typedEvent(id: number, event: string, raw: string): PresenceEvent | UnrecognizedEvent {
  return typedData(id, event, readData(raw));
}

/** An event from its type name and already-read data. */
export function typedData(id: number, event: string, data: { ok: boolean; value: unknown }): PresenceEvent | UnrecognizedEvent {
  if (!isEventType(event)) return unrecognized(id, event, data, `event type ${JSON.stringify(event)} is newer than this SDK`);
  if (!data.ok) return unrecognized(id, event, data);
  const parsed = eventDataSchemas[event].safeParse(data.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return unrecognized(
      id,
      event,
      data,
      `the ${event} data does not match: ${issue ? `${issue.path.join('.') || '(data)'}: ${issue.message}` : 'invalid'}`,
    );
  }
  // The schema chosen by `event` parsed it, so this pairing is the union member for `event`.
  return { id, type: event, data: parsed.data } as PresenceEvent;
}

/** The problem in a stream `error` event; an unreadable one is still a reason to reconnect. */
function parseProblem(raw: string) {
  const parsed = Problem.safeParse(readData(raw).value);
  if (parsed.success) return parsed.data;
  return { type: 'internal', title: 'Stream error', status: 500, detail: 'the events stream failed' };
}
