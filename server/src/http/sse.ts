// A Server-Sent Events writer over a hijacked Fastify reply. It refuses CR/LF in `event`
// and `id`, splits data into lines, honours socket backpressure with a bounded wait (a dead
// peer cannot hang the sender), and ends failed streams with an `error` event.
import { PresenceError } from '@presence/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type SseWriter = {
  /** Resolves false when the stream is closed or the peer stopped reading for too long. */
  send(frame: { id?: number | string; event: string; data: unknown }): Promise<boolean>;
  comment(text: string): void;
  /** An id-only frame: sets the client's Last-Event-ID without dispatching an event. */
  cursor(id: number | string): Promise<boolean>;
  end(): void;
  readonly closed: boolean;
  onClose(fn: () => void): void;
};

const DRAIN_TIMEOUT_MS = 10_000;
const noNewline = (s: string) => {
  if (/[\r\n]/.test(s)) throw new Error('SSE event and id must not contain CR or LF');
  return s;
};

export function openSse(reply: FastifyReply, headers: Record<string, string> = {}): SseWriter {
  reply.hijack();
  const raw = reply.raw;
  const fromHooks = reply.getHeaders() as Record<string, string>;
  raw.writeHead(200, {
    ...fromHooks,
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  let closed = false;
  const closers: (() => void)[] = [];
  const close = () => {
    if (closed) return;
    closed = true;
    for (const fn of closers) fn();
  };
  raw.on('close', close);
  raw.on('error', close);

  const write = async (text: string): Promise<boolean> => {
    if (closed) return false;
    if (raw.write(text)) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = await new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        raw.off('drain', onDrain);
        raw.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      raw.once('drain', onDrain);
      raw.once('close', onClose);
      timer = setTimeout(() => done(false), DRAIN_TIMEOUT_MS);
    });
    if (!drained) {
      raw.destroy();
      close();
    }
    return drained;
  };

  return {
    send({ id, event, data }) {
      let frame = '';
      if (id !== undefined) frame += `id: ${noNewline(String(id))}\n`;
      frame += `event: ${noNewline(event)}\n`;
      for (const line of JSON.stringify(data).split('\n')) frame += `data: ${line}\n`;
      return write(`${frame}\n`);
    },
    cursor(id) {
      return write(`id: ${noNewline(String(id))}\n\n`);
    },
    comment(text) {
      if (!closed) raw.write(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`);
    },
    end() {
      if (!closed) raw.end();
      close();
    },
    get closed() {
      return closed;
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
  };
}

/**
 * Where a resumed stream starts: the `Last-Event-ID` header when sent, else the `last_event_id`
 * query (for a client that cannot set headers); neither is live only. A header that is not a
 * non-negative integer is 400 invalid_request.
 */
export function resumeAfter(req: FastifyRequest, query: number | undefined): number | undefined {
  const header = req.headers['last-event-id'];
  if (header === undefined) return query;
  if (!/^\d{1,15}$/.test(String(header))) throw new PresenceError('invalid_request', 'Last-Event-ID must be a non-negative integer');
  return Number(header);
}
