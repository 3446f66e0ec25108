// Surfaces at scale (DESIGN.md "Surfaces at scale"): a surface token redeems link codes
// without receiving a secret, acts for the keys it linked with Presence-Acting-For (both
// gates as for the key itself), and reads one multiplexed stream of every linked account's
// events with one resumable cursor. Runs on lowdb, and on PostgreSQL in postgres-suites.test.ts
// (PRESENCE_TEST_STORE=postgres).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, openStream, removeDir, startTestServer, type TestServer } from './harness';

let s: TestServer;
let bobAdmin: string;
let tokenA: string;
let tokenB: string;
let surfaceA: string;

const surfaces = () => {
  if (!s.core.surfaces) throw new Error('the server has no surfaces');
  return s.core.surfaces;
};

async function linkCode(admin: string, scopes?: string[]) {
  const made = await call(s.url, 'POST', '/v1/links', { key: admin, body: scopes ? { scopes } : {} });
  expect(made.status).toBe(201);
  return made.json.code as string;
}

const redeemWith = (token: string, code: string, user: string) =>
  call(s.url, 'POST', `/v1/links/${code}/redeem`, { key: token, body: { surface: 'telegram', user_id: user, name: user } });

const acting = (token: string, keyId: string) => ({ 'presence-acting-for': keyId, authorization: `Bearer ${token}` });

const memoryEvent = (account: string, i: number) =>
  s.core.events.emit({ accountId: account, kind: 'live' }, 'memory', { key: `topic:s${i}`, tier: 'fading' });
const messageEvent = (account: string, i: number) =>
  s.core.events.emit({ accountId: account, kind: 'live' }, 'message', { text: `m${i}`, cause: 'standing:x' });

beforeAll(async () => {
  s = await startTestServer({ heartbeatMs: 200 });
  bobAdmin = (await s.core.accounts.create('bob')).admin.secret;
  const a = await surfaces().create('bot-a');
  tokenA = a.token;
  surfaceA = a.surface.id;
  tokenB = (await surfaces().create('bot-b')).token;
});
afterAll(async () => {
  await s.close();
  removeDir(s.dataDir);
});

describe('surface tokens', () => {
  it('redeem a link code into a key id and no secret; the key is listed on the account', async () => {
    const r = await redeemWith(tokenA, await linkCode(s.live), 'ada');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ account: 'default', name: 'telegram:ada', surface: surfaceA, surface_user: 'ada' });
    expect(r.json.key_id).toMatch(/^key_/);
    expect(r.json).not.toHaveProperty('key');
    expect(JSON.stringify(r.json)).not.toMatch(/prs_live_/);
    const keys = await call(s.url, 'GET', '/v1/keys', { key: s.live });
    expect(keys.json.keys.map((k: { id: string }) => k.id)).toContain(r.json.key_id);
  });

  it("act for a linked key with Presence-Acting-For, through that key's scopes and rate limit", async () => {
    const r = await redeemWith(tokenA, await linkCode(s.live, ['talk']), 'bea');
    const keyId = r.json.key_id as string;
    const me = await call(s.url, 'GET', '/v1/presence/me', { headers: acting(tokenA, keyId) });
    expect(me.status).toBe(200);
    expect(me.headers.get('ratelimit-limit')).toBe('120');
    // The key holds talk only: memory:read is refused, exactly as for the key itself.
    const memory = await call(s.url, 'GET', '/v1/memory', { headers: acting(tokenA, keyId) });
    expect([memory.status, memory.json.type]).toEqual([403, 'scope']);
    expect(memory.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('refuses a key of another surface (403), an unlinked key (403), no Acting-For (403), a bad token (401)', async () => {
    const b = await redeemWith(tokenB, await linkCode(s.live), 'cy');
    const other = await call(s.url, 'GET', '/v1/presence/me', { headers: acting(tokenA, b.json.key_id) });
    expect([other.status, other.json.type]).toEqual([403, 'scope']);
    const keys = await call(s.url, 'GET', '/v1/keys', { key: s.live });
    const adminId = keys.json.keys.find((k: { scopes: string[] }) => k.scopes.includes('admin')).id;
    const unlinked = await call(s.url, 'GET', '/v1/keys', { headers: acting(tokenA, adminId) });
    expect([unlinked.status, unlinked.json.type]).toEqual([403, 'scope']);
    const bare = await call(s.url, 'GET', '/v1/presence/me', { key: tokenA });
    expect([bare.status, bare.json.type]).toEqual([403, 'scope']);
    const bad = await call(s.url, 'GET', '/v1/presence/me', { key: `prs_surface_${'x'.repeat(40)}` });
    expect([bad.status, bad.json.type]).toEqual([401, 'auth']);
    // A key is not a surface token on the surface's own routes.
    expect((await call(s.url, 'GET', '/v1/surface', { key: s.live })).status).toBe(403);
    const me = await call(s.url, 'GET', '/v1/surface', { key: tokenA });
    expect(me.json).toMatchObject({ id: surfaceA, name: 'bot-a' });
    expect(me.json.links).toBeGreaterThanOrEqual(2);
  });

  it('a revoked linked key is 401 when acted for', async () => {
    const r = await redeemWith(tokenA, await linkCode(s.live), 'dee');
    await call(s.url, 'DELETE', `/v1/keys/${r.json.key_id}`, { key: s.live });
    const gone = await call(s.url, 'GET', '/v1/presence/me', { headers: acting(tokenA, r.json.key_id) });
    expect([gone.status, gone.json.type]).toEqual([401, 'auth']);
  });
});

describe('POST /v1/surface/adopt', () => {
  it('moves a key redeemed the old way over to the surface; another surface cannot take it', async () => {
    const old = await call(s.url, 'POST', `/v1/links/${await linkCode(s.live)}/redeem`, {
      body: { surface: 'telegram', user_id: 'hal', name: 'hal' },
    });
    expect(old.json.key).toMatch(/^prs_live_/);
    const before = await call(s.url, 'GET', '/v1/presence/me', { headers: acting(tokenA, old.json.key_id) });
    expect(before.status).toBe(403);
    const adopted = await call(s.url, 'POST', '/v1/surface/adopt', { key: tokenA, body: { key: old.json.key, surface_user: 'hal' } });
    expect(adopted.status).toBe(200);
    expect(adopted.json).toMatchObject({ key_id: old.json.key_id, surface: surfaceA, surface_user: 'hal' });
    expect(adopted.json).not.toHaveProperty('key');
    expect((await call(s.url, 'GET', '/v1/presence/me', { headers: acting(tokenA, old.json.key_id) })).status).toBe(200);
    // Again: the same answer; by another surface: 409.
    expect((await call(s.url, 'POST', '/v1/surface/adopt', { key: tokenA, body: { key: old.json.key, surface_user: 'hal' } })).status).toBe(
      200,
    );
    const taken = await call(s.url, 'POST', '/v1/surface/adopt', { key: tokenB, body: { key: old.json.key, surface_user: 'hal' } });
    expect([taken.status, taken.json.type]).toEqual([409, 'conflict']);
    const bad = await call(s.url, 'POST', '/v1/surface/adopt', { key: tokenA, body: { key: 'prs_live_nope', surface_user: 'hal' } });
    expect([bad.status, bad.json.type]).toEqual([401, 'auth']);
  });
});

describe('redeeming through a surface token', () => {
  it("closes for a surface user after 10 failures in 10 minutes, never for the token's other users", async () => {
    const made = await surfaces().create('bot-budget');
    for (let i = 0; i < 10; i++) expect((await redeemWith(made.token, 'ABCDEFGHJKLMNPQRSTUV', 'mallory')).status).toBe(404);
    const code = await linkCode(s.live);
    const refused = await redeemWith(made.token, code, 'mallory');
    expect([refused.status, refused.json.type]).toEqual([429, 'rate_limited']);
    expect(refused.json.detail).toMatch(/this surface user/);
    expect((await redeemWith(made.token, code, 'ada')).status).toBe(200);
  });
});

describe('POST /v1/surface/adopt refuses', () => {
  it('an admin key, and a key not made by redeeming a link code (400); nothing is linked', async () => {
    const admin = await s.core.accounts.create('adopt-admin');
    const plain = await call(s.url, 'POST', '/v1/keys', { key: admin.admin.secret, body: { name: 'plain', scopes: ['talk'] } });
    const adminNamed = await call(s.url, 'POST', '/v1/keys', {
      key: admin.admin.secret,
      body: { name: 'telegram:boss', scopes: ['admin'] },
    });
    for (const [secret, id] of [
      [admin.admin.secret, admin.admin.id],
      [plain.json.secret, plain.json.id],
      [adminNamed.json.secret, adminNamed.json.id],
    ] as [string, string][]) {
      const r = await call(s.url, 'POST', '/v1/surface/adopt', { key: tokenA, body: { key: secret, surface_user: 'mallory' } });
      expect([r.status, r.json.type], r.text).toEqual([400, 'invalid_request']);
      expect((await call(s.url, 'GET', '/v1/presence/me', { headers: acting(tokenA, id) })).status).toBe(403);
    }
  });
});

describe('GET /v1/surface/events', () => {
  it("multiplexes linked accounts in per-account order, by the linked keys' scopes, and resumes from one cursor", async () => {
    const t = (await surfaces().create('bot-stream')).token;
    const onDefault = await redeemWith(t, await linkCode(s.live, ['talk']), 'eve');
    const onBob = await redeemWith(t, await linkCode(bobAdmin), 'fay');
    const stream = openStream(s.url, '/v1/surface/events', t);
    await stream.until(() => stream.cursors.length > 0);
    for (let i = 0; i < 3; i++) {
      await memoryEvent('default', i); // eve holds talk only: not hers to see
      await messageEvent('default', i);
      await memoryEvent('bob', i);
    }
    await stream.until(() => stream.frames.length >= 6);
    const seen = stream.frames.map((f) => [f.data.account, f.event, f.data.key_ids]);
    expect(seen.filter(([a]) => a === 'default')).toEqual([0, 1, 2].map(() => ['default', 'message', [onDefault.json.key_id]]));
    expect(seen.filter(([a]) => a === 'bob')).toEqual([0, 1, 2].map(() => ['bob', 'memory', [onBob.json.key_id]]));
    const ids = (account: string) => stream.frames.filter((f) => f.data.account === account).map((f) => f.data.event.id as number);
    expect(ids('bob')).toEqual([...ids('bob')].sort((a, b) => a - b));
    const positions = stream.frames.map((f) => Number(f.id));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    await stream.close();

    // Resumed with the last position seen: only what came after, nothing twice.
    const last = positions.at(-1) as number;
    await messageEvent('default', 9);
    await memoryEvent('bob', 9);
    const resumed = openStream(s.url, '/v1/surface/events', t, { 'last-event-id': String(last) });
    await resumed.until(() => resumed.frames.length >= 2);
    // Order holds per account only: the two accounts' appends are sequenced independently.
    expect(resumed.frames.map((f) => [f.data.account, f.event]).sort()).toEqual([
      ['bob', 'memory'],
      ['default', 'message'],
    ]);
    expect(resumed.frames.every((f) => Number(f.id) > last)).toBe(true);

    // Revoking a linked key: the stream says so, and that account's events stop.
    await call(s.url, 'DELETE', `/v1/keys/${onBob.json.key_id}`, { key: bobAdmin });
    await resumed.until(() => resumed.frames.some((f) => f.event === 'link_revoked'));
    expect(resumed.frames.at(-1)?.data).toMatchObject({ account: 'bob', key_id: onBob.json.key_id, surface_user: 'fay' });
    await memoryEvent('bob', 10);
    await messageEvent('default', 10);
    await resumed.until(() => resumed.frames.filter((f) => f.event === 'message').length >= 2);
    expect(resumed.frames.filter((f) => f.data.account === 'bob' && f.event !== 'link_revoked')).toHaveLength(1);
    await resumed.close();
  });

  it('partitions split the accounts with no overlap; a surface token revoked closes its stream', async () => {
    const made = await surfaces().create('bot-parts');
    const accounts = ['p1', 'p2', 'p3', 'p4'];
    for (const name of accounts) {
      const admin = (await s.core.accounts.create(name)).admin.secret;
      expect((await redeemWith(made.token, await linkCode(admin), name)).status).toBe(200);
    }
    const parts = [0, 1].map((i) => openStream(s.url, `/v1/surface/events?partition=${i}&of=2`, made.token));
    await Promise.all(parts.map((p) => p.until(() => p.cursors.length > 0)));
    for (const a of accounts) await messageEvent(a, 1);
    await Promise.all(parts.map((p) => p.until(() => parts[0]!.frames.length + parts[1]!.frames.length >= 4)));
    const got = parts.flatMap((p) => p.frames.map((f) => f.data.account as string)).sort();
    expect(got).toEqual(accounts);
    expect((await call(s.url, 'GET', '/v1/surface/events?partition=2&of=2', { key: made.token })).status).toBe(400);

    await surfaces().revoke(made.surface.id);
    await Promise.all(parts.map((p) => p.until(() => p.ended)));
    expect((await call(s.url, 'GET', '/v1/surface', { key: made.token })).status).toBe(401);
  });
});

describe('@presence/client with a surface token', () => {
  it('redeems without a secret, acts with as(keyId), and reads the surface stream typed', async () => {
    const { createPresenceClient, isApiError } = await import('@presence/client');
    const made = await surfaces().create('bot-sdk');
    const bot = createPresenceClient({ baseUrl: s.url, token: made.token, retries: 0 });
    const link = await bot.surface.redeem(await linkCode(s.live), { surface: 'telegram', user_id: 'gus', name: 'gus' });
    expect(link).toMatchObject({ account: 'default', surface: made.surface.id, surface_user: 'gus' });
    expect((await bot.surface.get()).links).toBe(1);
    const gus = bot.as(link.key_id);
    expect((await gus.presence.me()).name).toBeTypeOf('string');
    const refused = await bot.presence.me().catch((e: unknown) => e);
    expect(isApiError(refused) && refused.status).toBe(403);

    const sub = bot.surface.events.subscribe({ lastEventId: 0 });
    await gus.memory.pin({ key: 'token:WETH' });
    for await (const item of sub) {
      if (item.type !== 'event') continue;
      expect(item.account).toBe('default');
      expect(item.key_ids).toEqual([link.key_id]);
      expect(item.event.type).toBe('memory');
      if (item.event.type === 'memory') expect(item.event.data.key).toBe('token:WETH');
      break;
    }
    sub.close();
  });

  it('a cursor past what the server holds (a restored backup) resumes from its head, on the surface stream and the events stream', async () => {
    const { createPresenceClient } = await import('@presence/client');
    const made = await surfaces().create('bot-restored');
    const bot = createPresenceClient({ baseUrl: s.url, token: made.token, retries: 0 });
    const link = await bot.surface.redeem(await linkCode(s.live), { surface: 'telegram', user_id: 'hal', name: 'hal' });
    const hal = bot.as(link.key_id);
    const user = createPresenceClient({ baseUrl: s.url, token: s.live, retries: 0 });
    const surfaceSub = bot.surface.events.subscribe({ lastEventId: 1_000_000_000 });
    const eventsSub = user.events.subscribe({ lastEventId: 1_000_000_000 });
    const first = async <T extends { type: string }>(sub: AsyncIterable<T>) => {
      for await (const item of sub) if (item.type === 'event' || item.type === 'memory') return item;
    };
    const surfaceItem = first(surfaceSub);
    const eventsItem = first(eventsSub);
    // Once both streams stand at the head (their cursor frame moved them down), a pin reaches both.
    await vi.waitFor(() => expect([surfaceSub.lastEventId, eventsSub.lastEventId].every((id) => (id ?? 0) < 1_000_000_000)).toBe(true));
    await hal.memory.pin({ key: 'token:DAI' });
    expect(await surfaceItem).toMatchObject({ type: 'event', event: { type: 'memory', data: { key: 'token:DAI' } } });
    expect(await eventsItem).toMatchObject({ type: 'memory', data: { key: 'token:DAI' } });
    surfaceSub.close();
    eventsSub.close();
  });
});
