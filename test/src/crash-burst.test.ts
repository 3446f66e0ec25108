// Crash safety of the server process: a SIGKILL in the middle of a burst of writes loses no
// write that was answered. Store-agnostic, so it also runs on PostgreSQL (postgres-suites.test.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, tempDir } from './harness';
import { spawnServer } from './process';

describe('server process under SIGKILL', () => {
  it('a SIGKILL in the middle of a burst of pins loses no answered write', async () => {
    const dataDir = tempDir();
    const child = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_RATE_LIMIT: '100000/1s' });
    const { live, test } = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8'));
    const answered: string[] = [];
    let n = 0;
    const worker = async () => {
      for (;;) {
        const key = `topic:k${n++}`;
        try {
          const r = await call(child.url, 'POST', '/v1/memory/pin', { key: live, body: { key } });
          if (r.status !== 200) throw new Error(`pin answered ${r.status}: ${r.text}`);
          answered.push(key);
        } catch (e) {
          if ((e as Error).message.startsWith('pin answered')) throw e;
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    while (answered.length < 150) await new Promise((r) => setTimeout(r, 5));
    child.proc.kill('SIGKILL');
    await Promise.all(workers);
    await child.exited;
    const s = await startTestServer({ dataDir, keys: { live, test } });
    try {
      const listing = await call(s.url, 'GET', '/v1/memory', { key: live });
      const pinned = new Set(listing.json.pinned.map((p: { key: string }) => p.key));
      expect(answered.filter((k) => !pinned.has(k))).toEqual([]);
      // Every answered pin also left its event in the durable log.
      const { latest } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
      expect(latest).toBeGreaterThanOrEqual(answered.length);
    } finally {
      await s.close();
      removeDir(dataDir);
    }
  });
});
