// The /v1 surface over HTTP: problem+json for every failure, rate limits, key rotation with
// a driven clock, memory, and the presence resource.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-test-server';
import { call, createManualClock, removeDir, startTestServer } from './harness';

const clock = createManualClock(Date.now());
const s = useTestServer({ clock, env: { PRESENCE_RATE_LIMIT: '1000/60s' } });

describe('errors are problem+json, never a stack', () => {
  const isProblem = (r: { headers: Headers; json: unknown }, status: number, type: string) => {
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.json).toMatchObject({ status, type, title: expect.any(String), detail: expect.any(String) });
    expect(JSON.stringify(r.json)).not.toMatch(/\bat .*\.ts:\d+|node_modules/);
  };
  it('404 for an unknown route', async () => isProblem(await call(s.url, 'GET', '/v1/nothing', { key: s.live }), 404, 'not_found'));
  it('413 for a body over 64 KiB', async () =>
    isProblem(
      await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'token:WETH', note: 'x'.repeat(70_000) } }),
      413,
      'payload_too_large',
    ));
  it('400 for bad JSON', async () =>
    isProblem(
      await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, rawBody: '{"key":', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    ));
  it('400 naming the field for a schema failure', async () => {
    const r = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'x', scopes: ['fly'] } });
    isProblem(r, 400, 'invalid_request');
    expect(r.json.detail).toContain('`scopes[0]` must be one of');
  });
  it('415 for a wrong content type', async () =>
    isProblem(
      await call(s.url, 'POST', '/v1/memory/pin', {
        key: s.live,
        rawBody: 'key=token:WETH',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'unsupported_media_type',
    ));
  it('400 for an invalid memory key in the path, 404 when already gone', async () => {
    isProblem(await call(s.url, 'DELETE', '/v1/memory/nonsense', { key: s.live }), 400, 'invalid_request');
    isProblem(await call(s.url, 'DELETE', '/v1/memory/topic:never', { key: s.live }), 404, 'not_found');
  });
  it('400 for a bad Last-Event-ID', async () =>
    isProblem(await call(s.url, 'GET', '/v1/events', { key: s.live, headers: { 'last-event-id': 'abc' } }), 400, 'invalid_request'));
});

describe('rate limits', () => {
  it('every keyed answer carries RateLimit headers; the window slides with the clock', async () => {
    const mk = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'limited', scopes: ['talk'] } });
    const other = await startTestServer({ clock, dataDir: s.dataDir, keys: s, env: { PRESENCE_RATE_LIMIT: '3/10s' } }).catch((e) => e);
    // One server per data dir: the lock refuses a second one.
    expect(String(other)).toMatch(/another Presence server/);
    const s2 = await startTestServer({ clock, env: { PRESENCE_RATE_LIMIT: '3/10s' } });
    try {
      const me = () => call(s2.url, 'GET', '/v1/presence/me', { key: s2.live });
      const first = await me();
      expect([first.headers.get('ratelimit-limit'), first.headers.get('ratelimit-remaining')]).toEqual(['3', '2']);
      clock.advance(6_000);
      await me();
      await me();
      const limited = await me();
      expect([limited.status, limited.json.type, limited.headers.get('retry-after')]).toEqual([429, 'rate_limited', '4']);
      clock.advance(4_000); // the first request leaves the window; exactly one more fits
      expect((await me()).status).toBe(200);
      expect((await me()).status).toBe(429);
    } finally {
      await s2.close();
      removeDir(s2.dataDir);
    }
    expect(mk.status).toBe(201);
  });
});

describe('keys', () => {
  it('list shows last4 and never a secret; rotation keeps the old secret for the grace window only', async () => {
    const created = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'rot', scopes: ['memory:read'] } });
    const old = created.json.secret as string;
    expect(old).toMatch(/^prs_live_[0-9A-Za-z]{40}$/);
    const rotated = await call(s.url, 'POST', `/v1/keys/${created.json.id}/rotate`, { key: s.live, body: { grace_s: 300 } });
    expect(rotated.status).toBe(200);
    const fresh = rotated.json.secret as string;
    expect(fresh).not.toBe(old);
    expect(Date.parse(rotated.json.grace_until) - clock.now()).toBe(300_000);
    clock.advance(299_000);
    expect((await call(s.url, 'GET', '/v1/memory', { key: old })).status).toBe(200);
    clock.advance(1_000);
    expect((await call(s.url, 'GET', '/v1/memory', { key: old })).status).toBe(401);
    expect((await call(s.url, 'GET', '/v1/memory', { key: fresh })).status).toBe(200);
    const list = await call(s.url, 'GET', '/v1/keys', { key: s.live });
    expect(list.text).not.toContain(fresh);
    expect(list.text).not.toContain(old);
    expect(list.json.keys.find((k: { id: string }) => k.id === created.json.id)).toMatchObject({ last4: fresh.slice(-4), state: 'active' });
  });
  it('grace_s above a day is refused; unknown key ids are 404', async () => {
    const created = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'g', scopes: ['talk'] } });
    expect((await call(s.url, 'POST', `/v1/keys/${created.json.id}/rotate`, { key: s.live, body: { grace_s: 90_000 } })).status).toBe(400);
    expect((await call(s.url, 'DELETE', '/v1/keys/key_AAAAAAAAAAAAAAAA', { key: s.live })).status).toBe(404);
  });
  it('any key may revoke itself (DELETE /v1/keys/self), and only itself', async () => {
    const bot = await call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name: 'bot-self', scopes: ['talk'] } });
    const r = await call(s.url, 'DELETE', '/v1/keys/self', { key: bot.json.secret });
    expect([r.status, r.json.id, r.json.state]).toEqual([200, bot.json.id, 'revoked']);
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: bot.json.secret })).status).toBe(401);
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: s.live })).status).toBe(200);
    expect((await call(s.url, 'DELETE', '/v1/keys/self', { key: s.test })).status).toBe(403);
  });

  it('an account cannot see or revoke another account’s keys', async () => {
    const other = await s.core.accounts.create('tenant2');
    const mine = await call(s.url, 'GET', '/v1/keys', { key: s.live });
    const id = mine.json.keys[0].id;
    expect((await call(s.url, 'DELETE', `/v1/keys/${id}`, { key: other.admin.secret })).status).toBe(404);
    const theirs = await call(s.url, 'GET', '/v1/keys', { key: other.admin.secret });
    expect(theirs.json.keys.map((k: { id: string }) => k.id)).toEqual([other.admin.id]);
  });
});

describe('memory and presence', () => {
  it('pin is a no-op 200 when already pinned; forget is immediate; presence/me counts', async () => {
    const a = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'pair:WETH-USDC', note: 'watch' } });
    const b = await call(s.url, 'POST', '/v1/memory/pin', { key: s.live, body: { key: 'pair:WETH-USDC' } });
    expect([a.json.changed, b.json.changed, b.status]).toEqual([true, false, 200]);
    await s.core.memory.touch({ accountId: 'default', kind: 'live' }, ['token:USDC']);
    const listing = await call(s.url, 'GET', '/v1/memory', { key: s.live });
    expect(listing.json.pinned.find((p: { key: string }) => p.key === 'pair:WETH-USDC')).toMatchObject({ note: 'watch', tier: 'pinned' });
    expect(listing.json.fading.find((p: { key: string }) => p.key === 'token:USDC')).toMatchObject({ days_left: 30, tier: 'fading' });
    const me = await call(s.url, 'GET', '/v1/presence/me', { key: s.live });
    expect(me.json.memory).toEqual({ pinned: listing.json.pinned.length, fading: listing.json.fading.length });
    expect((await call(s.url, 'DELETE', '/v1/memory/pair:WETH-USDC', { key: s.live })).status).toBe(200);
    expect((await call(s.url, 'DELETE', '/v1/memory/pair:WETH-USDC', { key: s.live })).status).toBe(404);
  });
  it('PATCH /v1/presence/me changes name, model and preferences; test keys change nothing', async () => {
    const r = await call(s.url, 'PATCH', '/v1/presence/me', {
      key: s.live,
      body: { name: 'Ada', route: { model: 'openai:gpt-4o-mini' }, preferences: { stable: 'DAI' } },
    });
    expect(r.json).toMatchObject({ name: 'Ada', route: { model: 'openai:gpt-4o-mini' }, preferences: { stable: 'DAI' } });
    const t = await call(s.url, 'PATCH', '/v1/presence/me', { key: s.test, body: { name: 'Zed' } });
    expect([t.json.name, t.json.mode]).toEqual(['Zed', 'test']);
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: s.live })).json.name).toBe('Ada');
    expect((await call(s.url, 'PATCH', '/v1/presence/me', { key: s.live, body: { route: { model: 'gpt 4' } } })).status).toBe(400);
    expect((await call(s.url, 'PATCH', '/v1/presence/me', { key: s.live, body: { colour: 'red' } })).status).toBe(400);
  });
});

describe('preferences are bounded', () => {
  const patch = (preferences: Record<string, unknown>, key = s.live) =>
    call(s.url, 'PATCH', '/v1/presence/me', { key, body: { preferences } });
  const many = (n: number, value: string, prefix = 'k') =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, value]));
  const refused = (r: { status: number; json: { type?: string; detail?: string } }, limit: RegExp) => {
    expect([r.status, r.json.type]).toEqual([400, 'invalid_request']);
    expect(r.json.detail).toMatch(limit);
  };
  const stored = async () => (await call(s.url, 'GET', '/v1/presence/me', { key: s.live })).json.preferences;

  it('a patch over a limit is 400 naming it: 50 keys, 64-character keys, 500-character values, 16 KiB', async () => {
    refused(await patch(many(51, 'x')), /at most 50 keys/);
    refused(await patch({ ['k'.repeat(65)]: 'x' }), /at most 64 characters/);
    refused(await patch({ note: 'x'.repeat(501) }), /at most 500 characters/);
    refused(await patch(many(40, 'x'.repeat(450))), /16384 bytes \(16 KiB\)/);
    expect((await patch({ note: 'x'.repeat(500) })).status).toBe(200);
  });

  it('the merged result counts: a patch within the limits is refused when the stored whole would not be; null removes a key', async () => {
    const before = await stored();
    for (const k of Object.keys(before)) await patch({ [k]: null });
    expect(await stored()).toEqual({});
    expect((await patch(many(30, 'x'.repeat(400), 'a'))).status).toBe(200);
    refused(await patch(many(21, 'y', 'b')), /at most 50 keys \(this would be 51\)/);
    refused(await patch(many(15, 'z'.repeat(400), 'c')), /16 KiB/);
    // A test key's PATCH goes through the same merge (over its overlay's view), so it is refused alike.
    refused(await patch(many(51, 'y', 'b'), s.test), /at most 50 keys/);
    expect(Object.keys(await stored())).toHaveLength(30);
    expect((await patch({ ...many(20, 'y', 'b'), a0: null })).status).toBe(200);
    const now = await stored();
    expect([Object.keys(now).length, now.a0, now.b19]).toEqual([49, undefined, 'y']);
  });
});

describe('logs', () => {
  it('never contain a key, even at trace level', async () => {
    const lines: string[] = [];
    const stream = { write: (l: string) => lines.push(l) };
    const { loadConfig, startServer } = await import('@presence/server');
    const { tempDir } = await import('./harness');
    const dataDir = tempDir();
    const srv = await startServer({
      config: loadConfig({ PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' }),
      logger: { level: 'trace', stream, redact: ['req.headers.authorization'] },
      maintenanceMs: 0,
    });
    try {
      const live = srv.bootstrap?.live as string;
      await call(srv.url, 'GET', '/v1/presence/me', { key: live });
      await call(srv.url, 'POST', '/v1/keys', { key: live, body: { name: 'n', scopes: ['talk'] } });
      await call(srv.url, 'GET', '/v1/memory', { key: `${live}x` });
      expect(lines.length).toBeGreaterThan(3);
      expect(lines.join('\n')).not.toContain(live.slice(9));
    } finally {
      await srv.close();
      removeDir(dataDir);
    }
  });
});
