// Webhooks on many servers (issue 34): three real `presence-server` processes on one
// PostgreSQL database, a receiver on 127.0.0.1 (PRESENCE_WEBHOOK_ALLOW_PRIVATE=1). Events made
// on every server reach the endpoint once each, in id order, never two requests at once; the
// server delivering is killed (-9) with its request in flight, and another server sends that
// request again with the same webhook-id once the dead one's lease has run out, then the rest
// in order. Every request is checked with the standardwebhooks package.
import { startWebhookReceiver, type WebhookReceiver } from '@presence/core/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from './cluster';
import { call } from './harness';
import { freshDatabaseEnv } from './test-database';

let c: Cluster;
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  c = await startCluster({ database: (await freshDatabaseEnv()) as never, servers: 3, env: { PRESENCE_WEBHOOK_ALLOW_PRIVATE: '1' } });
}, 180_000);
afterAll(async () => {
  await c?.stop();
  await receiver?.close();
}, 60_000);

/** Polls `check` until it answers something other than undefined (a positive signal, not a sleep). */
async function until<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const by = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > by) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('webhooks across servers', () => {
  it('delivers in order from any server, one at a time, and a kill -9 mid-request loses nothing', async () => {
    const alive = () => c.servers.filter((s) => s.alive());
    const made = await call(c.servers[0]?.url as string, 'POST', '/v1/webhooks', {
      key: c.live,
      body: { url: receiver.url, events: ['memory'] },
    });
    expect(made.status, made.text).toBe(201);
    const { id, secret } = made.json as { id: string; secret: string };
    const pin = async (n: number) => {
      const s = alive()[n % alive().length];
      const r = await call(s?.url as string, 'POST', '/v1/memory/pin', { key: c.live, body: { key: `topic:hook${n}` } });
      expect(r.status, r.text).toBe(200);
    };
    const keyOf = (i: number) => {
      const h = receiver.received[i];
      const p = new Webhook(secret).verify(h?.body ?? '', h?.headers ?? {}) as { id: number; data: { key: string } };
      return p.data.key;
    };

    // Six events, two made on each server: each arrives once, in order.
    for (let n = 1; n <= 6; n++) await pin(n);
    await until(() => (receiver.received.length >= 6 ? true : undefined), 60_000, 'six deliveries');
    expect(receiver.received.map((_, i) => keyOf(i))).toEqual([1, 2, 3, 4, 5, 6].map((n) => `topic:hook${n}`));

    // The next request hangs at the receiver: find who sent it (its lease names the server) and kill it.
    receiver.answer('hang');
    await pin(7);
    await until(() => (receiver.received.length >= 7 ? true : undefined), 60_000, 'the seventh request');
    const [row] = await c.sql<{ token: string | null }[]>`SELECT doc->'lease'->>'token' AS token FROM webhooks WHERE id = ${id}`;
    const holder = c.servers.find((s) => row?.token?.startsWith(`${s.id}:`));
    expect(holder, `lease ${row?.token}`).toBeDefined();
    await holder?.kill();
    receiver.answer({ status: 200 });
    await pin(8);
    await pin(9);
    // The dead server's lease runs out (10 s timeout + 5 s); the leader's beat finds it due.
    await until(() => (receiver.received.length >= 10 ? true : undefined), 90_000, 'the redelivery and the rest');
    const ids = receiver.received.map((h) => h.headers['webhook-id']);
    expect(ids[7]).toBe(ids[6]);
    expect(receiver.received.map((_, i) => keyOf(i)).slice(6)).toEqual(['topic:hook7', 'topic:hook7', 'topic:hook8', 'topic:hook9']);
    expect(new Set(ids).size).toBe(9);
    expect(receiver.maxInFlight()).toBe(1);
    const log = await call(alive()[0]?.url as string, 'GET', `/v1/webhooks/${id}/deliveries?limit=20`, { key: c.live });
    expect((log.json as { deliveries: { outcome: string }[] }).deliveries.filter((d) => d.outcome === 'delivered')).toHaveLength(9);
  }, 240_000);
});
