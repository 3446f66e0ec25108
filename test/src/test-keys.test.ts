// Test keys over HTTP: their writes land in the account's overlay, so a test key reads what
// test keys wrote on top of the real data, while live keys never see it. On the embedded store
// the overlay is the server's memory and a restart forgets it; on PostgreSQL it is the
// deployment's, shared by its servers (cluster-test-keys.test.ts), so a restart keeps it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, type TestServer } from './harness';
import { onPostgres } from './test-database';

describe('test keys see their own writes; live keys and restarts never do', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
    removeDir(s.dataDir);
  });

  const pinned = async (key: string) =>
    ((await call(s.url, 'GET', '/v1/memory', { key })).json.pinned as { key: string }[]).map((p) => p.key);
  const standing = async (key: string) =>
    ((await call(s.url, 'GET', '/v1/standing', { key })).json.standing as { id: string }[]).map((x) => x.id);
  const thread = async (key: string) =>
    ((await call(s.url, 'GET', '/v1/messages?limit=50', { key })).json.messages as { text: string }[]).map((m) => m.text);

  it('memory, presence, thread and standing intents written by a test key', async () => {
    await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'token:WETH' } });
    const pin = await call(s.url, 'POST', '/v1/memory/pin', { key: s.test, body: { key: 'topic:rehearsal', note: 'test only' } });
    expect([pin.status, pin.json.changed, pin.headers.get('presence-mode')]).toEqual([200, true, 'test']);
    expect(await pinned(s.test)).toEqual(['token:WETH', 'topic:rehearsal']);
    expect(await pinned(s.live)).toEqual(['token:WETH']);

    await call(s.url, 'PATCH', '/v1/presence/me', { key: s.test, body: { name: 'Tess' } });
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: s.test })).json).toMatchObject({ name: 'Tess', mode: 'test' });
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: s.live })).json.name).toBe('Presence');

    const text = 'every day at 09:00 tell me my balance';
    const turn = await call(s.url, 'POST', '/v1/messages', { key: s.test, body: { text } });
    expect(turn.status, turn.text).toBe(200);
    const [id] = await standing(s.test);
    expect(id).toMatch(/^st_/);
    expect(await standing(s.live)).toEqual([]);
    expect(await thread(s.test)).toContain(text);
    expect(await thread(s.live)).not.toContain(text);

    expect((await call(s.url, 'DELETE', `/v1/standing/${id}`, { key: s.test })).status).toBe(200);
    expect(await standing(s.test)).toEqual([]);
  });

  it.skipIf(onPostgres())('a restart forgets all of it (the embedded store)', async () => {
    s = await s.restart();
    expect(await pinned(s.test)).toEqual(['token:WETH']);
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: s.test })).json.name).toBe('Presence');
    expect(await thread(s.test)).toEqual([]);
  });

  it.runIf(onPostgres())('a restart keeps it on PostgreSQL, where the overlay is shared by the servers', async () => {
    s = await s.restart();
    expect(await pinned(s.test)).toEqual(['token:WETH', 'topic:rehearsal']);
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: s.test })).json.name).toBe('Tess');
    expect(await pinned(s.live)).toEqual(['token:WETH']);
  });
});
