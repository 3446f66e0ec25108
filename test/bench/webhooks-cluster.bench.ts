// Webhooks on three servers (issue 34): three real `presence-server` processes on one
// PostgreSQL (fsync on), 100 endpoints (10 accounts of 10) on a receiver on 127.0.0.1
// (PRESENCE_WEBHOOK_ALLOW_PRIVATE=1). Each event is a pin made on the servers in turn; the
// figure is the time from the pin's request to each of its 10 deliveries, whichever server
// holds the endpoint's lease. The one-server figures are in webhooks.bench.ts.
import { randomBytes } from 'node:crypto';
import { startWebhookReceiver } from '@presence/core/testing';
import { startPostgres } from '../../scripts/postgres';
import { type ClusterServer, startCluster } from '../src/cluster';
import { call } from '../src/harness';
import { fmt, percentile, type Row } from './stats';

const ACCOUNTS = 10;
const ENDPOINTS = 10;
const ROUNDS = 30;

export async function clusterLatency(rows: Row[]) {
  const pg = await startPostgres({ fsync: true });
  const r = await startWebhookReceiver();
  try {
    const database = { PRESENCE_DATABASE_URL: await pg.createDatabase(), PRESENCE_MASTER_KEY: randomBytes(32).toString('hex') };
    const c = await startCluster({ database, servers: 3, env: { PRESENCE_RATE_LIMIT: '1000000/1s', PRESENCE_WEBHOOK_ALLOW_PRIVATE: '1' } });
    try {
      const at = (i: number) => (c.servers[i % c.servers.length] as ClusterServer).url;
      const keys = Array.from({ length: ACCOUNTS }, (_, a) => c.createAccount(`hooks${a}`));
      for (const [a, key] of keys.entries()) {
        for (let e = 0; e < ENDPOINTS; e++) {
          const made = await call(at(e), 'POST', '/v1/webhooks', { key, body: { url: `${r.url}/a${a}/e${e}`, events: ['memory'] } });
          if (made.status !== 201) throw new Error(`webhook create: ${made.status} ${made.text}`);
        }
      }
      const ms: number[] = [];
      let i = 0;
      for (let round = 0; round < ROUNDS; round++) {
        for (const key of keys) {
          const before = r.received.length;
          const t0 = performance.now();
          const pinned = await call(at(i++), 'POST', '/v1/memory/pin', { key, body: { key: `topic:r${round}` } });
          if (pinned.status !== 200) throw new Error(`pin: ${pinned.status} ${pinned.text}`);
          while (r.received.length < before + ENDPOINTS) await r.next();
          const now = performance.now();
          // The receiver stamps no times: the last of the 10 is the one each round waits for.
          ms.push(now - t0);
        }
      }
      rows.push({
        benchmark: `webhooks: pin → all 10 of its endpoints delivered, 100 endpoints (10 accounts × 10), three servers, PostgreSQL (${ms.length} events) p50 / p99`,
        figure: `${fmt(percentile(ms, 50))} / ${fmt(percentile(ms, 99))} ms`,
        target: 'p99 < 1 s',
      });
    } finally {
      await c.stop();
    }
  } finally {
    await r.close();
    await pg.stop();
  }
}
