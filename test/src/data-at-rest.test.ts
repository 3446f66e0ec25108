// Data at rest is private: the data directory and every directory under it are 0700 and
// every file 0600 — what the server writes (documents, logs, keys, the devnet's state and
// deployment, the pid file) and what an earlier version left world-readable, which the start
// fixes.
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, type TestServer, tempDir } from './harness';

/** Every entry under `root` with its permission bits, as "path: mode" (octal). */
function modes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string) => {
    const st = lstatSync(p);
    out[path.relative(root, p) || '.'] = `${st.isDirectory() ? 'dir' : 'file'} ${(st.mode & 0o777).toString(8)}`;
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
  };
  walk(root);
  return out;
}
const wrong = (m: Record<string, string>) => Object.entries(m).filter(([, mode]) => mode !== 'dir 700' && mode !== 'file 600');

describe.runIf(process.platform !== 'win32')('data at rest', () => {
  const dataDir = tempDir('presence-modes-');
  let s: TestServer;
  beforeAll(async () => {
    // What an earlier version left: 0755 directories and 0644 files, the devnet's included.
    for (const d of ['data/memory', 'data/events', 'devnet']) mkdirSync(path.join(dataDir, d), { recursive: true });
    writeFileSync(path.join(dataDir, 'data', 'memory', 'old.json'), JSON.stringify({ entries: [] }), { mode: 0o644 });
    writeFileSync(path.join(dataDir, 'data', 'events', 'old.jsonl'), '', { mode: 0o644 });
    writeFileSync(path.join(dataDir, 'devnet', 'notes.txt'), 'kept by hand\n', { mode: 0o644 });
    for (const d of ['.', 'data', 'data/memory', 'data/events', 'devnet']) chmodSync(path.join(dataDir, d), 0o755);
    expect(wrong(modes(dataDir)).length).toBe(8);
    s = await startTestServer({ dataDir, chain: true, env: { PRESENCE_RATE_LIMIT: '100000/1s' } });
  });
  afterAll(async () => {
    await s?.close();
    removeDir(dataDir);
  });

  it('every file is 0600 and every directory 0700 after start, after writes of every kind, and after stop', async () => {
    expect(wrong(modes(dataDir))).toEqual([]);

    const ok = async (method: string, url: string, body: unknown, idempotencyKey?: string) => {
      const r = await call(s.url, method, url, { key: s.live, body, idempotencyKey });
      expect(r.status, r.text).toBeLessThan(300);
      return r;
    };
    await ok('POST', '/v1/memory/pin', { key: 'topic:modes', note: 'private' }, 'pin-modes');
    await ok('POST', '/v1/messages', { text: 'tell me when WETH is below 2500 USD' });
    await ok('POST', '/v1/links', {});
    await ok('POST', '/v1/keys', { name: 'bot', scopes: ['talk'] });
    await ok('PATCH', '/v1/presence/me', { preferences: { stable: 'DAI' } });
    await ok('POST', '/v1/wallet/intent', { do: 'wrap 0.01 ETH' });

    const running = modes(dataDir);
    for (const p of [
      'server.pid',
      'master.key',
      'bootstrap-keys.json',
      'devnet',
      'devnet/deployment.json',
      'data/accounts.jsonl',
      'data/agenda.jsonl',
      'data/lookups.jsonl',
      'data/accounts/default.json',
      'data/keys/default.json',
      'data/links/default.json',
      'data/wallets/default.json',
      'data/memory/default.jsonl',
      'data/standing/default.json',
      'data/events/default.jsonl',
      'data/thread/default.jsonl',
      'data/intents/default.jsonl',
      'data/idempotency/default.jsonl',
    ])
      expect(running, p).toHaveProperty([p]);
    expect(wrong(running)).toEqual([]);

    await s.close();
    // anvil dumped its state on the way out: that file is private as well.
    const stopped = modes(dataDir);
    expect(stopped).toHaveProperty(['devnet/state.json']);
    expect(wrong(stopped)).toEqual([]);
  });
});
