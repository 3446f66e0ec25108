// A webhook receiver for tests: an HTTP server on 127.0.0.1 (a free port) that records every
// request it gets and answers as the test says (a status, no answer at all, or the socket
// closed). `next()` resolves with the next request, in arrival order, so a test waits for what
// it expects instead of for a time. It stops by itself when the test calls `close()`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedHook = { headers: Record<string, string>; body: string; path: string };
export type ReceiverBehaviour = { status: number } | 'hang' | 'close';

export type WebhookReceiver = {
  url: string;
  received: ReceivedHook[];
  /** The next request not yet taken by `next()` (one already received resolves at once). */
  next(): Promise<ReceivedHook>;
  /** The most requests that were open at once (one sender per endpoint keeps it at 1). */
  maxInFlight(): number;
  /** How the following requests are answered (default 200). */
  answer(behaviour: ReceiverBehaviour): void;
  close(): Promise<void>;
};

export async function startWebhookReceiver(path = '/hook'): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  let taken = 0;
  const waiting: ((h: ReceivedHook) => void)[] = [];
  let behaviour: ReceiverBehaviour = { status: 200 };
  const hanging = new Set<ServerResponse>();
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    let open = true;
    const ended = () => {
      if (open) inFlight--;
      open = false;
    };
    res.on('close', ended);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const hook = { headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '' };
      received.push(hook);
      const b = behaviour;
      if (b === 'close') req.socket.destroy();
      else if (b === 'hang') hanging.add(res);
      else res.writeHead(b.status, { 'content-type': 'text/plain' }).end('ok');
      const w = waiting.shift();
      if (w) {
        taken++;
        w(hook);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    next() {
      const ready = received[taken];
      if (ready) {
        taken++;
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
    maxInFlight: () => maxInFlight,
    answer(b) {
      behaviour = b;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
