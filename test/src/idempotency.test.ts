// Idempotency-Key: byte-identical replay, 422 on a different request, one effect for 20
// concurrent duplicates, and replay after a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, type TestServer } from './harness';

describe('Idempotency-Key', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
    removeDir(s.dataDir);
  });

  const memoryEvents = async () => (await s.core.events.bounds('default', 'live')).latest;

  it('replays the stored answer byte for byte with Idempotent-Replayed', async () => {
    const first = await call(s.url, 'POST', '/v1/keys', {
      key: s.live,
      idempotencyKey: 'k-create-1',
      body: { name: 'bot', scopes: ['talk'] },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await call(s.url, 'POST', '/v1/keys', {
      key: s.live,
      idempotencyKey: 'k-create-1',
      body: { name: 'bot', scopes: ['talk'] },
    });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const list = await call(s.url, 'GET', '/v1/keys', { key: s.live });
    expect(list.json.keys.filter((k: { name: string }) => k.name === 'bot')).toHaveLength(1);
  });

  it('answers 422 idempotency_mismatch when the key is reused for a different request', async () => {
    await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, idempotencyKey: 'k-pin', body: { key: 'token:DAI' } });
    const other = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, idempotencyKey: 'k-pin', body: { key: 'token:USDC' } });
    expect([other.status, other.json.type]).toEqual([422, 'idempotency_mismatch']);
    const otherPath = await call(s.url, 'PATCH', '/v1/presence/me', { key: s.live, idempotencyKey: 'k-pin', body: { name: 'X' } });
    expect(otherPath.status).toBe(422);
  });

  it('rejects a malformed Idempotency-Key', async () => {
    const r = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, idempotencyKey: 'has space', body: { key: 'token:DAI' } });
    expect([r.status, r.json.type]).toEqual([400, 'invalid_request']);
  });

  it('20 concurrent duplicates produce one effect and 20 identical answers', async () => {
    const before = await memoryEvents();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(s.url, 'POST', '/v1/memory/pin', { key: s.live, idempotencyKey: 'k-burst', body: { key: 'pair:WETH-DAI', note: 'burst' } }),
      ),
    );
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect((await memoryEvents()) - before).toBe(1);
  });

  it('keys are scoped to the account: another account may use the same key', async () => {
    const other = await s.core.accounts.create('other');
    const r = await call(s.url, 'POST', '/v1/memory/pin', {
      key: other.admin.secret,
      idempotencyKey: 'k-pin',
      body: { key: 'token:WETH' },
    });
    expect([r.status, r.headers.get('idempotent-replayed')]).toEqual([200, null]);
  });

  it('replays after a restart', async () => {
    const first = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, idempotencyKey: 'k-restart', body: { key: 'topic:gas' } });
    s = await s.restart();
    const again = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, idempotencyKey: 'k-restart', body: { key: 'topic:gas' } });
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a test key’s answers stay in its sandbox', async () => {
    const t = await call(s.url, 'POST', '/v1/memory/pin', { key: s.test, idempotencyKey: 'k-sandbox', body: { key: 'token:SCAM' } });
    expect(t.headers.get('presence-mode')).toBe('test');
    const live = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, idempotencyKey: 'k-sandbox', body: { key: 'token:WETH' } });
    expect(live.headers.get('idempotent-replayed')).toBeNull();
    const listing = await call(s.url, 'GET', '/v1/memory', { key: s.live });
    expect(listing.json.pinned.map((p: { key: string }) => p.key)).not.toContain('token:SCAM');
  });
});
