// Telegram updates by webhook (TELEGRAM_WEBHOOK_URL + TELEGRAM_WEBHOOK_SECRET), for bots run as
// several processes behind a load balancer: each process serves POST <the URL's path> on
// PRESENCE_BOTS_PORT. Every request must carry the secret in X-Telegram-Bot-Api-Secret-Token
// (compared in constant time; anything else is 401 and never parsed further). An update is
// claimed by its update_id first (in the shared table with PostgreSQL, so a retry Telegram
// sends to another process is handled once), then Telegram is answered 200 at once, and the
// update is handled afterwards: a slow reply never makes Telegram time out and send it again.
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update } from 'grammy/types';
import type { Log } from '../surface/logging';

const MAX_BODY = 1024 * 1024;

export type WebhookOptions = {
  path: string;
  secret: string;
  port: number;
  host: string;
  /** True for the first sight of this update id anywhere (false: a retry, or another process has it). */
  claim(updateId: number): Promise<boolean>;
  handle(update: Update): Promise<void>;
  log: Log;
};

const sameSecret = (given: string | string[] | undefined, secret: string) => {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

export function createWebhookServer(o: WebhookOptions) {
  const inFlight = new Set<Promise<void>>();
  const server = http.createServer((req, res) => {
    const answer = (status: number) => {
      if (!res.headersSent)
        res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{"ok":true}' : '{"ok":false}');
    };
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== o.path) return answer(404);
    if (!sameSecret(req.headers['x-telegram-bot-api-secret-token'], o.secret)) {
      o.log('warn', 'refused a webhook request without the right secret', { address: req.socket.remoteAddress ?? null });
      req.resume();
      return answer(401);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        answer(413);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      let update: Update;
      try {
        update = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Update;
        if (!Number.isSafeInteger(update.update_id)) throw new Error('no update_id');
      } catch {
        return answer(400);
      }
      void o.claim(update.update_id).then(
        (mine) => {
          answer(200);
          if (!mine) return;
          const p = o
            .handle(update)
            .catch((e: unknown) => o.log('error', 'a Telegram update failed', { update: update.update_id, error: String(e) }))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
        },
        (e: unknown) => {
          // Not claimed: Telegram sends it again, here or to another process.
          o.log('warn', 'could not claim a Telegram update', { update: update.update_id, error: String(e) });
          answer(503);
        },
      );
    });
  });

  return {
    async listen(): Promise<string> {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(o.port, o.host, () => resolve());
      });
      const { address, port } = server.address() as AddressInfo;
      return `http://${address}:${port}${o.path}`;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await Promise.allSettled([...inFlight]);
    },
  };
}
