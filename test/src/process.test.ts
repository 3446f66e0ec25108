// The server as a process: configuration errors, the ready line, clean shutdown on
// SIGTERM, crash safety under SIGKILL, and the operator CLI.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, tempDir } from './harness';
import { serverCli, serverMain, spawnServer } from './process';

describe('server process', () => {
  it('a bad setting stops the start with one line naming the variable', () => {
    for (const [name, value] of [
      ['PRESENCE_PORT', 'eighty'],
      ['PRESENCE_RATE_LIMIT', 'lots'],
      ['PRESENCE_MASTER_KEY', 'short'],
    ]) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', serverMain], {
        env: { ...process.env, PRESENCE_DATA_DIR: tempDir(), [name as string]: value as string },
        encoding: 'utf8',
      });
      expect(r.status).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(name);
    }
  });

  it('prints the ready line and the bootstrap keys once, saves them 0600, and stops on SIGTERM', async () => {
    const dataDir = tempDir();
    const child = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
    const saved = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8'));
    expect(statSync(path.join(dataDir, 'bootstrap-keys.json')).mode & 0o777).toBe(0o600);
    expect(child.stdout()).toContain(saved.live);
    expect((await call(child.url, 'GET', '/v1/presence/me', { key: saved.live })).status).toBe(200);
    child.proc.kill('SIGTERM');
    const code = await child.exited;
    expect(code, child.stderr()).toBe(0);
    const again = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
    expect(again.stdout()).not.toContain(saved.live);
    again.proc.kill('SIGINT');
    expect(await again.exited).toBe(0);
    removeDir(dataDir);
  });

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
      const { latest } = await s.core.events.bounds('default', 'live');
      expect(latest).toBeGreaterThanOrEqual(answered.length);
    } finally {
      await s.close();
      removeDir(dataDir);
    }
  });

  it('presence-server accounts create NAME prints a working admin key, and refuses while the server runs', async () => {
    const dataDir = tempDir();
    const env = { ...process.env, PRESENCE_DATA_DIR: dataDir };
    const r = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'acme'], { env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const key = /admin key (prs_live_\w+)/.exec(r.stdout)?.[1];
    expect(key).toBeDefined();
    const bad = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'Bad Name'], { env, encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^error: invalid_request/);
    const child = await spawnServer({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' });
    try {
      const me = await call(child.url, 'GET', '/v1/keys', { key: key as string });
      expect(me.status).toBe(200);
      const busy = spawnSync(process.execPath, [serverCli, 'accounts', 'create', 'later'], { env, encoding: 'utf8' });
      expect(busy.status).toBe(3);
      expect(busy.stderr).toContain('stop it first');
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      removeDir(dataDir);
    }
  });
});
