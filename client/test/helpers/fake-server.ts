// A tiny scripted HTTP server for the edges a real server will not produce on demand
// (429 then 200, a dropped socket, a hang). Each request is answered by the next handler.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };
export type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

export async function startFakeServer(handlers: Handler[]) {
  const seen: Seen[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      const h = handlers[Math.min(seen.length - 1, handlers.length - 1)];
      h?.(req, res, s);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

export const problem = (status: number, type: string, detail: string, headers: Record<string, string> = {}): Handler =>
  json(status, { type, title: type, status, detail }, headers);

/** Accepts the request, then kills the connection without answering. */
export const drop: Handler = (req) => req.socket.destroy();

/** Never answers. */
export const hang: Handler = () => {};
