// Linking: one-time codes that expire, redeem without a key into a named live key, cannot
// be guessed (redeem attempts are rate-limited per address), and unlink on revocation.
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-test-server';
import { call, createManualClock, openStream } from './harness';

const clock = createManualClock(Date.now());
const s = useTestServer({ clock });

const redeem = (code: string, body: Record<string, unknown> = { surface: 'telegram', user_id: '42', name: 'ada' }) =>
  call(s.url, 'POST', `/v1/links/${code}/redeem`, { body });

describe('links', () => {
  it('a code redeems once into a live key named <surface>:<name> with the link scopes', async () => {
    const made = await call(s.url, 'POST', '/v1/links', { key: s.live, body: {} });
    expect(made.status).toBe(201);
    expect(made.json.code).toMatch(/^[A-Z2-9]{20}$/);
    expect(Date.parse(made.json.expires_at) - clock.now()).toBe(600_000);
    const r = await redeem(made.json.code.toLowerCase());
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      account: 'default',
      name: 'telegram:ada',
      scopes: ['talk', 'memory:read', 'memory:write', 'wallet:read', 'wallet:act'],
    });
    const me = await call(s.url, 'GET', '/v1/presence/me', { key: r.json.key });
    expect(me.status).toBe(200);
    expect((await call(s.url, 'GET', '/v1/keys', { key: r.json.key })).status).toBe(403);
    const again = await redeem(made.json.code);
    expect([again.status, again.json.type]).toEqual([404, 'not_found']);
    // Revoking the key unlinks that user at once.
    await call(s.url, 'DELETE', `/v1/keys/${r.json.key_id}`, { key: s.live });
    expect((await call(s.url, 'GET', '/v1/presence/me', { key: r.json.key })).status).toBe(401);
  });

  it('a code is stored as HMAC-SHA-256 under a key derived from the master key, never as its plain SHA-256', async () => {
    const made = await call(s.url, 'POST', '/v1/links', { key: s.live, body: {} });
    const file = readFileSync(path.join(s.dataDir, 'data', 'links', 'default.json'), 'utf8');
    const hashes: string[] = JSON.parse(file).links.map((l: { hash: string }) => l.hash);
    const code: string = made.json.code;
    expect(file).not.toContain(code);
    expect(hashes).not.toContain(createHash('sha256').update(code).digest('hex'));
    // A copy of the file alone does not let anyone test guesses: that takes the master key.
    const master = Buffer.from(readFileSync(path.join(s.dataDir, 'master.key'), 'utf8').trim(), 'hex');
    const subkey = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'presence link codes v1', 32));
    expect(hashes).toContain(createHmac('sha256', subkey).update(code).digest('hex'));
    expect((await redeem(code)).status).toBe(200);
  });

  it('codes expire, carry narrowed scopes, and test keys cannot make them', async () => {
    const made = await call(s.url, 'POST', '/v1/links', { key: s.live, body: { scopes: ['talk'], ttl_s: 60 } });
    clock.advance(61_000);
    expect((await redeem(made.json.code)).status).toBe(404);
    const fresh = await call(s.url, 'POST', '/v1/links', { key: s.live, body: { scopes: ['talk'] } });
    expect((await redeem(fresh.json.code)).json.scopes).toEqual(['talk']);
    expect((await call(s.url, 'POST', '/v1/links', { key: s.test, body: {} })).status).toBe(403);
    expect((await redeem('ABCDEFGH', { surface: 'Bad Surface', user_id: '1', name: 'x' })).status).toBe(400);
  });

  it("redeem answers the account's newest event id, so a first subscription from it misses nothing", async () => {
    await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: 'topic:before-link', tier: 'fading' });
    const { latest } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
    expect(latest).toBeGreaterThan(0);
    const made = await call(s.url, 'POST', '/v1/links', { key: s.live, body: {} });
    const r = await redeem(made.json.code, { surface: 'discord', user_id: '7', name: 'grace' });
    expect(r.status).toBe(200);
    expect(r.json.last_event_id).toBe(latest);
    // Between redeeming and subscribing: replayed from that id, and nothing older is.
    const between = await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: 'topic:after-link', tier: 'fading' });
    const st = openStream(s.url, '/v1/events', r.json.key, { 'last-event-id': String(r.json.last_event_id) });
    await st.until(() => st.frames.length >= 1);
    expect(st.frames.map((f) => Number(f.id))).toEqual([between.id]);
    await st.close();
  });

  it('redeem attempts are rate-limited per address', async () => {
    clock.advance(120_000);
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push((await redeem(`ZZZZZZZ${'23456789ABCD'[i]}`)).status);
    expect(answers.slice(0, 10).every((x) => x === 404)).toBe(true);
    const limited = await redeem('ZZZZZZZZ');
    expect([limited.status, limited.json.type]).toEqual([429, 'rate_limited']);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
