// The one loop both event streams run (GET /v1/events, GET /v1/surface/events): open the SSE
// response, write each item core's subscription yields as a frame, a `: heartbeat` comment
// every `heartbeatMs`, and when reading fails an `error` frame whose problem says why (the
// database away is `store_unavailable`, a reason to reconnect; anything else `internal`, a
// fault of ours). Closing either side closes the subscription; what the route holds besides
// (a stream slot, a registry entry) it frees in its own `sse.onClose`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemFor } from './problem';
import { openSse, type SseWriter } from './sse';

/** An event frame, or an id-only frame that moves the client's Last-Event-ID on. */
export type SseFrame = { id?: number | string; event: string; data: unknown } | { cursor: number | string };

export function streamSse<T>(
  req: FastifyRequest,
  reply: FastifyReply,
  {
    items,
    frameOf,
    heartbeatMs,
    onHeartbeat,
    name,
  }: {
    items: AsyncIterable<T> & { close(): void };
    frameOf: (item: T) => SseFrame;
    heartbeatMs: number;
    /** Besides the comment: a look at whether the stream may stay open. */
    onHeartbeat?: (sse: SseWriter) => void;
    /** The stream as logs and the error frame name it ("events stream"). */
    name: string;
  },
): SseWriter {
  const sse = openSse(reply);
  const heartbeat = setInterval(() => {
    sse.comment('heartbeat');
    onHeartbeat?.(sse);
  }, heartbeatMs);
  sse.onClose(() => {
    clearInterval(heartbeat);
    items.close();
  });
  // The stream's own loop, for as long as the client stays: not awaited, so the handler
  // returns; every failure is caught inside and ends the stream.
  void (async () => {
    try {
      for await (const item of items) {
        const f = frameOf(item);
        if (!('cursor' in f ? await sse.cursor(f.cursor) : await sse.send(f))) break;
      }
    } catch (err) {
      // The database away (store_unavailable) is a reason to reconnect, not a fault of ours:
      // the frame says which it was, and Last-Event-ID loses nothing either way.
      const failure = problemFor(err, req, `the ${name} failed; reconnect with Last-Event-ID`);
      if (failure.type === 'internal') req.log.error({ err }, `${name} failed`);
      else req.log.warn({ err }, `${name} ended with a problem to reconnect after`);
      await sse.send({ event: 'error', data: failure });
    } finally {
      sse.end();
    }
  })();
  return sse;
}
