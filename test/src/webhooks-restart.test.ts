// A webhook endpoint across a crash of its only server: kill -9 with a request in flight and
// another event waiting behind it; the restarted server sends the one in flight again (same
// webhook-id) and then the next, in order, and nothing else twice. Store-agnostic: on the
// embedded store the restart voids the lease and resumes at once; on PostgreSQL the dead
// server's lease runs out first.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startWebhookReceiver } from '@presence/core/testing';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { call, removeDir, tempDir } from './harness';
import { spawnServer } from './process';

async function until(check: () => boolean, timeoutMs: number, what: string) {
  const by = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > by) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhooks across a kill -9 and restart', () => {
  it('resends the request in flight with the same webhook-id, then the rest in order', async () => {
    const dataDir = tempDir();
    const receiver = await startWebhookReceiver();
    const env = { PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_WEBHOOK_ALLOW_PRIVATE: '1' };
    // A bound on a hang (a tsx start under a loaded machine), not a timing claim.
    const start = () => spawnServer(env, { timeoutMs: 90_000 });
    let child = await start();
    try {
      const { live } = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8')) as { live: string };
      const made = await call(child.url, 'POST', '/v1/webhooks', { key: live, body: { url: receiver.url, events: ['memory'] } });
      expect(made.status, made.text).toBe(201);
      const { secret } = made.json as { secret: string };
      const pin = async (n: number) => {
        const r = await call(child.url, 'POST', '/v1/memory/pin', { key: live, body: { key: `topic:r${n}` } });
        expect(r.status, r.text).toBe(200);
      };
      await pin(1);
      await until(() => receiver.received.length === 1, 30_000, 'the first delivery');
      receiver.answer('hang');
      await pin(2);
      await pin(3);
      await until(() => receiver.received.length === 2, 30_000, 'the request that hangs');
      child.proc.kill('SIGKILL');
      await child.exited;
      receiver.answer({ status: 200 });
      child = await start();
      await until(() => receiver.received.length >= 4, 60_000, 'the redelivery and the next');
      const keys = receiver.received.map((h) => (new Webhook(secret).verify(h.body, h.headers) as { data: { key: string } }).data.key);
      expect(keys).toEqual(['topic:r1', 'topic:r2', 'topic:r2', 'topic:r3']);
      const ids = receiver.received.map((h) => h.headers['webhook-id']);
      expect(ids[2]).toBe(ids[1]);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      await receiver.close();
      removeDir(dataDir);
    }
  }, 180_000);
});
