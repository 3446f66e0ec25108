// Red-team case 7, replayed against a real server (red-team-postgres.test.ts runs it on
// PostgreSQL): a server started with another master key than the one its store's secrets
// are sealed with stops at once, with one line naming PRESENCE_MASTER_KEY (exit 2), instead
// of passing /v1/ready and failing every wallet write.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, tempDir } from './harness';
import { childEnv, serverMain } from './process';
import { databaseEnvFor } from './test-database';

describe('7. a wrong master key does not start', () => {
  it('the first start stores a check value; a start with another key stops with one line, exit 2; the right key starts', async () => {
    const dataDir = tempDir();
    const key = randomBytes(32).toString('hex');
    const first = await startTestServer({ dataDir, env: { PRESENCE_MASTER_KEY: key } });
    const keys = { live: first.live, test: first.test };
    await first.close();
    try {
      const other = randomBytes(32).toString('hex');
      await expect(startTestServer({ dataDir, keys, env: { PRESENCE_MASTER_KEY: other } })).rejects.toThrow(
        /^invalid PRESENCE_MASTER_KEY \(value not shown: it is a secret\): it is not the key/,
      );
      const r = spawnSync(process.execPath, ['--import', 'tsx', serverMain], {
        env: childEnv({ ...(await databaseEnvFor(dataDir)), PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0', PRESENCE_MASTER_KEY: other }),
        encoding: 'utf8',
      });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^presence: invalid PRESENCE_MASTER_KEY .*not the key/)]);
      expect(r.stderr).not.toContain(other);
      const again = await startTestServer({ dataDir, keys, env: { PRESENCE_MASTER_KEY: key } });
      expect((await call(again.url, 'GET', '/v1/ready')).status).toBe(200);
      await again.close();
    } finally {
      removeDir(dataDir);
    }
  });
});
