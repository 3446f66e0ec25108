// The sender port and its node:http(s) adapter: one POST to a pinned address (the host name
// stays in the Host header and TLS SNI, the connection goes to the address the URL check
// judged), no redirects followed (a 3xx is an answer, and not a 2xx), at most `timeoutMs`
// from connecting to the last byte of the answer. Nothing of the answer is kept but its status.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookTarget } from './webhook-url';

export type WebhookSend = {
  target: WebhookTarget;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
};
export type WebhookAnswer = { status: number | null; error: string | null; durationMs: number };
export type WebhookSender = (send: WebhookSend) => Promise<WebhookAnswer>;

export const httpSender: WebhookSender = ({ target: { url, address }, headers, body, timeoutMs }) =>
  new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    const done = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, error, durationMs: Math.round(performance.now() - started) });
    };
    // The one answer the URL check allowed, whatever the name resolves to now.
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [{ address: address.address, family: address.family }]);
      else callback(null, address.address, address.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      lookup: pinned,
      agent: false,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Presence-Webhooks/1',
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      done(null, `no answer within ${timeoutMs} ms`);
    }, timeoutMs);
    req.on('response', (res) => {
      // Read (and drop) the body so the exchange completes; the status is the answer.
      res.on('data', () => undefined);
      res.on('end', () => done(res.statusCode ?? null, null));
      res.on('error', (e) => done(res.statusCode ?? null, e.message));
    });
    req.on('error', (e) => done(null, (e as NodeJS.ErrnoException).code ?? e.message));
    req.end(body);
  });
