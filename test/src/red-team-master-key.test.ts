// Red-team case 7, replayed against a real server (red-team-postgres.test.ts runs it on
// PostgreSQL): a server started with another master key than the one its store's secrets
// are sealed with stops at once, with one line naming PRESENCE_MASTER_KEY (exit 2), instead
// of passing /v1/ready and failing every wallet write.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createKeystore, fileMasterKeyCheck, type Keystore, rotateMasterKey, type StorePort } from '@presence/core';
import { createLowdbStore, resealLowdb } from '@presence/core/lowdb';
import { createPostgresStore, postgresMasterKeyCheck, resealPostgres } from '@presence/core/postgres';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, tempDir } from './harness';
import { childEnv, serverCli, serverMain } from './process';
import { databaseEnvFor, onPostgres } from './test-database';

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

/** The store of a data directory (its database under PRESENCE_TEST_STORE=postgres), opened under `keystore`. */
async function openStoreOf(dataDir: string, keystore: Keystore): Promise<StorePort> {
  const url = (await databaseEnvFor(dataDir)).PRESENCE_DATABASE_URL;
  return url ? createPostgresStore({ url, keystore, max: 1 }) : createLowdbStore({ dataDir, keystore });
}

describe('7. presence-server rotate-master-key', () => {
  it('refuses while a server runs on the store, naming it (exit 3, one line, as every operator command refuses); the server goes on under its key', async () => {
    const dataDir = tempDir();
    const [a, b] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    const database = await databaseEnvFor(dataDir);
    const s = await startTestServer({ dataDir, env: { PRESENCE_MASTER_KEY: a } });
    try {
      const r = spawnSync(process.execPath, [serverCli, 'rotate-master-key'], {
        env: childEnv({ ...database, PRESENCE_DATA_DIR: dataDir, PRESENCE_MASTER_KEY: a, PRESENCE_NEW_MASTER_KEY: b }),
        encoding: 'utf8',
      });
      expect(r.status).toBe(3);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      const health = (await call(s.url, 'GET', '/v1/health')).json;
      // On a database the servers are named by their ids; on a data directory by the pid holding it.
      expect(r.stderr).toContain(onPostgres() ? health.server.id : `pid ${process.pid}`);
      const pinned = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'topic:kept' }, idempotencyKey: 'kept-1' });
      expect(pinned.status).toBe(200);
    } finally {
      await s.close();
      removeDir(dataDir);
    }
  });

  it('re-seals wallets and stored answers; a crash midway is finished by running it again; the old key no longer starts', async () => {
    const dataDir = tempDir();
    const [a, b] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    const [ksA, ksB] = [createKeystore(Buffer.from(a, 'hex')), createKeystore(Buffer.from(b, 'hex'))];
    const database = await databaseEnvFor(dataDir);
    try {
      const first = await startTestServer({ dataDir, env: { PRESENCE_MASTER_KEY: a } });
      const keys = { live: first.live, test: first.test };
      const pin = () =>
        call(first.url, 'POST', '/v1/memory/pin', { key: keys.live, body: { key: 'topic:rotation' }, idempotencyKey: 'rot-1' });
      const answered = await pin();
      expect(answered.status).toBe(200);
      await first.close();
      // A wallet sealed under A (as the wallet layer seals it).
      const pk = `0x${randomBytes(32).toString('hex')}` as const;
      const address = privateKeyToAccount(pk).address;
      const store = await openStoreOf(dataDir, ksA);
      await store.createWallet({
        account_id: 'default',
        address,
        key: ksA.seal('default', address, pk),
        created_at: new Date().toISOString(),
        funded: false,
      });
      await store.close();

      // A rotation that dies after the wallets: neither key starts a server meanwhile.
      const url = database.PRESENCE_DATABASE_URL;
      const check = url ? postgresMasterKeyCheck(url) : fileMasterKeyCheck(dataDir);
      await expect(
        rotateMasterKey({
          check,
          from: ksA,
          to: ksB,
          resealAll: async (reseal) => {
            if (url) await resealPostgres(url, { ...reseal, answer: () => null });
            else await resealLowdb(dataDir, { ...reseal, answer: () => null });
            throw new Error('killed midway');
          },
        }),
      ).rejects.toThrow('killed midway');
      await check.close?.();
      for (const key of [a, b])
        await expect(startTestServer({ dataDir, keys, env: { PRESENCE_MASTER_KEY: key } })).rejects.toThrow(/rotation is under way/);

      const rotate = () =>
        spawnSync(process.execPath, [serverCli, 'rotate-master-key'], {
          env: childEnv({ ...database, PRESENCE_DATA_DIR: dataDir, PRESENCE_MASTER_KEY: a, PRESENCE_NEW_MASTER_KEY: b }),
          encoding: 'utf8',
        });
      const done = rotate();
      expect([done.status, done.stderr]).toEqual([0, '']);
      expect(done.stdout).toMatch(/^re-sealed 0 wallet key\(s\) and [1-9]\d* stored answer\(s\)/);
      expect(done.stdout).not.toContain(b);
      const again = rotate();
      expect([again.status, again.stdout]).toEqual([0, expect.stringMatching(/already sealed under the new key/)]);

      await expect(startTestServer({ dataDir, keys, env: { PRESENCE_MASTER_KEY: a } })).rejects.toThrow(/not the key/);
      const rotated = await startTestServer({ dataDir, keys, env: { PRESENCE_MASTER_KEY: b } });
      const replayed = await call(rotated.url, 'POST', '/v1/memory/pin', {
        key: keys.live,
        body: { key: 'topic:rotation' },
        idempotencyKey: 'rot-1',
      });
      expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.text]).toEqual([200, 'true', answered.text]);
      await rotated.close();
      const reopened = await openStoreOf(dataDir, ksB);
      const wallet = await reopened.getWallet('default');
      await reopened.close();
      expect(ksB.open('default', address, wallet?.key as never)).toBe(pk);
    } finally {
      removeDir(dataDir);
    }
  });
});
