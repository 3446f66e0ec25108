// Generic SSE over any HTTP method: GET /v1/events today, POST /v1/messages with
// `stream: true` next. Retries happen only before the stream opens (same Idempotency-Key);
// once it is open a break is a PresenceNetworkError, since only the caller knows whether
// the stream can be resumed (events can, a streamed reply cannot).
import { PresenceEventTooLargeError, PresenceNetworkError, PresenceProtocolError } from './errors';
import type { Http, HttpRequest, RequestOptions } from './http';
import { createSseParser, SseEventTooLarge, type SseItem } from './sse';

export type SseRequestOptions = RequestOptions & {
  /** Treat the stream as dead after this long without a byte (heartbeats count); 0 = never. */
  idleTimeoutMs?: number;
  /** Called once the 2xx headers are in, before the first item. */
  onOpen?: (response: Response) => void;
};

export async function* streamSse(http: Http, req: HttpRequest, options: SseRequestOptions = {}): AsyncGenerator<SseItem, void, undefined> {
  const what = `${req.method} ${req.path}`;
  const opened = await http.open({ ...req, accept: 'text/event-stream' }, options);
  const { response } = opened;
  const idleTimeoutMs = options.idleTimeoutMs ?? 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let idled = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // Aborting the fetch is not enough to end a pending read: undici cannot cancel a body that a
  // reader has locked, and an abort that lands as the server ends the response can leave the
  // read pending for good (seen under load: a stopped subscription that never stopped). So a
  // stop or an idle timeout also cancels our reader, which settles the read at once.
  const cut = (reason: unknown) => {
    opened.cancel(reason);
    reader?.cancel(reason).catch(() => undefined);
  };
  const onAbort = () => cut(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // The idle clock runs only while we wait for the network, not while the caller handles an item.
  const arm = () => {
    if (idleTimeoutMs <= 0) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idled = true;
      cut(new Error('idle'));
    }, idleTimeoutMs);
  };
  const cutShort = (cause?: unknown): Error | undefined => {
    if (options.signal?.aborted) return options.signal.reason;
    if (idled) return new PresenceNetworkError('timeout', `${what}: nothing received for ${idleTimeoutMs} ms`, { cause });
    return undefined;
  };
  try {
    const body = eventStreamBody(response, what);
    options.onOpen?.(response);
    reader = body.getReader();
    if (options.signal?.aborted) throw options.signal.reason;
    const decoder = new TextDecoder();
    const parser = createSseParser({ maxEventSize: http.maxEventSize });
    for (;;) {
      arm();
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw cutShort(e) ?? new PresenceNetworkError('interrupted', `${what}: the stream broke off`, { cause: e });
      }
      clearTimeout(idleTimer);
      if (chunk.done) {
        // A cancelled reader reads as a clean end: say why it ended.
        const why = cutShort();
        if (why) throw why;
        return;
      }
      yield* parse(parser, decoder.decode(chunk.value, { stream: true }), what);
    }
  } finally {
    clearTimeout(idleTimer);
    options.signal?.removeEventListener('abort', onAbort);
    // Ends the request when the caller stopped early; a no-op once the body is finished.
    opened.cancel();
    opened.release();
  }
}

/** The response's body, when it is an event stream. */
function eventStreamBody(response: Response, what: string): ReadableStream<Uint8Array> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('text/event-stream') || !response.body) {
    throw new PresenceProtocolError(`${what}: expected an event stream, got ${type || 'no content type'}`, response.status);
  }
  return response.body;
}

/** The items a chunk completes; an event over the size cap ends the stream (reading on would mean holding it anyway). */
function parse(parser: ReturnType<typeof createSseParser>, text: string, what: string): SseItem[] {
  try {
    return parser.push(text);
  } catch (e) {
    if (!(e instanceof SseEventTooLarge)) throw e;
    throw new PresenceEventTooLargeError(
      `${what}: an event is larger than ${e.limit} characters (the client's maxEventSize); the stream was closed`,
      e.limit,
      { cause: e },
    );
  }
}
