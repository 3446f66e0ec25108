// The SDK against a real server: every endpoint served today, typed errors, and
// Idempotency-Key reuse across a retry (the server sees one effect).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPresenceClient, PresenceApiError, type ResponseInfo } from '../src/index';
import { startTestServer, type TestServer } from './helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
});

const noSleep = async () => {};
const clientFor = (token: string, extra: Parameters<typeof createPresenceClient>[0] = {}) =>
  createPresenceClient({ baseUrl: s.url, token, sleep: noSleep, ...extra });

async function rejection(p: Promise<unknown>): Promise<PresenceApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(PresenceApiError);
  return e as PresenceApiError;
}

describe('endpoints', () => {
  it('meta: health and the OpenAPI document need no key', async () => {
    const c = createPresenceClient({ baseUrl: `${s.url}/v1/` });
    expect(await c.meta.health()).toMatchObject({ ok: true, version: expect.any(String) });
    expect((await c.meta.openapi()).openapi).toBe('3.1.0');
  });

  it('presence: me and update, with Presence-Mode on every keyed answer', async () => {
    const modes: (string | null)[] = [];
    const c = clientFor(s.live, { onResponse: (i) => modes.push(i.mode) });
    const me = await c.presence.me();
    expect(me).toMatchObject({ mode: 'live', route: { model: expect.any(String) }, wallet: { spend: expect.any(String) } });
    const renamed = await c.presence.update({ name: 'Ada' });
    expect(renamed.name).toBe('Ada');
    expect((await c.presence.me()).name).toBe('Ada');
    expect(modes).toEqual(['live', 'live', 'live']);
    expect((await clientFor(s.test).presence.me()).mode).toBe('test');
  });

  it('keys: create, list, rotate with grace, revoke at once', async () => {
    const c = clientFor(s.live);
    const k = await c.keys.create({ name: 'sdk-test', scopes: ['talk', 'memory:read'] });
    expect(k.secret).toMatch(/^prs_live_/);
    expect(k).toMatchObject({ kind: 'live', state: 'active', scopes: ['talk', 'memory:read'] });
    const listed = (await c.keys.list()).keys.find((x) => x.id === k.id);
    expect(listed).toMatchObject({ name: 'sdk-test', last4: k.secret.slice(-4) });
    expect(listed).not.toHaveProperty('secret');

    const rotated = await c.keys.rotate(k.id, { grace_s: 60 });
    expect(rotated.secret).not.toBe(k.secret);
    expect(rotated.grace_until).not.toBeNull();
    // Old and new secrets both work during the grace window.
    expect((await clientFor(k.secret).presence.me()).mode).toBe('live');
    expect((await clientFor(rotated.secret).presence.me()).mode).toBe('live');

    const revoked = await c.keys.revoke(k.id);
    expect(revoked.state).toBe('revoked');
    const e = await rejection(clientFor(rotated.secret).presence.me());
    expect(e).toMatchObject({ type: 'auth', status: 401 });
  });

  it('keys.revokeSelf: any key retires itself without admin; one Idempotency-Key; the key is dead at once', async () => {
    const admin = clientFor(s.live);
    const k = await admin.keys.create({ name: 'sdk-self', scopes: ['talk'] });
    const seen: ResponseInfo[] = [];
    const self = clientFor(k.secret, { onResponse: (i) => seen.push(i) });
    const gone = await self.keys.revokeSelf();
    expect(gone).toMatchObject({ id: k.id, name: 'sdk-self', state: 'revoked' });
    expect(gone).not.toHaveProperty('secret');
    expect(seen.map((i) => [i.method, i.path, i.status])).toEqual([['DELETE', '/v1/keys/self', 200]]);
    expect(seen[0]?.idempotencyKey).toBeTruthy();
    expect((await rejection(self.presence.me())).type).toBe('auth');
    expect((await admin.keys.list()).keys.find((x) => x.id === k.id)?.state).toBe('revoked');
    // Once revoked it cannot revoke itself again: the key is what authenticates the call.
    expect(await rejection(self.keys.revokeSelf())).toMatchObject({ type: 'auth', status: 401 });
  });

  it('memory: pin (a repeat is a no-op), list, forget, and 404 once gone', async () => {
    const c = clientFor(s.live);
    expect(await c.memory.pin({ key: 'token:WETH', note: 'main asset' })).toMatchObject({ key: 'token:WETH', changed: true });
    expect(await c.memory.pin({ key: 'token:WETH' })).toMatchObject({ changed: false });
    const list = await c.memory.list();
    expect(list.pinned).toContainEqual(expect.objectContaining({ key: 'token:WETH', note: 'main asset', tier: 'pinned' }));
    expect(await c.memory.forget('token:WETH')).toEqual({ key: 'token:WETH', forgotten: true });
    const e = await rejection(c.memory.forget('token:WETH'));
    expect(e).toMatchObject({ type: 'not_found', status: 404 });
  });
});

describe('typed errors', () => {
  it('401 auth: a bad key, with the whole problem body', async () => {
    const e = await rejection(clientFor('prs_live_nope').presence.me());
    expect(e).toMatchObject({ type: 'auth', status: 401, title: expect.any(String), detail: expect.any(String) });
    expect(e.problem).toMatchObject({ type: 'auth', status: 401 });
    expect(e.message).toBe(`auth: ${e.detail}`);
  });

  it('403 scope: a key without memory:read, and 4xx is never retried', async () => {
    const talker = await clientFor(s.live).keys.create({ name: 'talker', scopes: ['talk'] });
    const attempts: ResponseInfo[] = [];
    const e = await rejection(clientFor(talker.secret, { onResponse: (i) => attempts.push(i) }).memory.list());
    expect(e).toMatchObject({ type: 'scope', status: 403 });
    expect(attempts).toHaveLength(1);
  });

  it('400 invalid_request: a malformed memory key and an empty scope list', async () => {
    const c = clientFor(s.live);
    expect(await rejection(c.memory.pin({ key: 'not a key' }))).toMatchObject({ type: 'invalid_request', status: 400 });
    expect(await rejection(c.keys.create({ name: 'x', scopes: [] }))).toMatchObject({ type: 'invalid_request', status: 400 });
  });

  it('a caller abort rejects with the abort reason and sends nothing more', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('stop'));
    await expect(clientFor(s.live).presence.me({ signal: ctl.signal })).rejects.toThrow('stop');
  });
});

describe('Idempotency-Key', () => {
  /** A fetch that lets the server handle the first write, then loses its answer. */
  function losingFirstWrite() {
    const keys: (string | null)[] = [];
    let lost = false;
    const f: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'POST') keys.push(new Headers(init.headers).get('idempotency-key'));
      if (init?.method === 'POST' && !lost) {
        lost = true;
        await res.text(); // the server has fully answered: the effect happened
        throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      }
      return res;
    };
    return { fetch: f, keys };
  }

  it('a pin whose answer was lost is retried with the same key and replayed: one pin, one event', async () => {
    const { latest: before } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
    const lossy = losingFirstWrite();
    const infos: ResponseInfo[] = [];
    const c = clientFor(s.live, { fetch: lossy.fetch, onResponse: (i) => infos.push(i) });
    const r = await c.memory.pin({ key: 'topic:once' });
    // The replay carries the original answer: changed true (a second real pin would say false).
    expect(r).toMatchObject({ key: 'topic:once', changed: true });
    expect(lossy.keys).toHaveLength(2);
    expect(lossy.keys[0]).toBeTruthy();
    expect(lossy.keys[1]).toBe(lossy.keys[0]);
    // The first answer never reached the SDK; the only one it saw is the replay.
    expect(infos.map((i) => [i.attempt, i.replayed])).toEqual([[1, true]]);
    const { latest: after } = await s.core.events.bounds({ accountId: 'default', kind: 'live' });
    expect(after - before).toBe(1);
  });

  it('a key creation whose answer was lost creates one key', async () => {
    const c = clientFor(s.live);
    const count = (await c.keys.list()).keys.length;
    const lossy = losingFirstWrite();
    const k = await clientFor(s.live, { fetch: lossy.fetch }).keys.create({ name: 'once', scopes: ['talk'] });
    expect(lossy.keys[1]).toBe(lossy.keys[0]);
    const keys = (await c.keys.list()).keys;
    expect(keys).toHaveLength(count + 1);
    expect(keys.filter((x) => x.name === 'once').map((x) => x.id)).toEqual([k.id]);
  });

  it('each logical call gets its own key; a caller-supplied key is used as given', async () => {
    const seen: (string | undefined)[] = [];
    const c = clientFor(s.live, { onResponse: (i) => seen.push(i.idempotencyKey) });
    await c.memory.pin({ key: 'topic:a' });
    await c.memory.pin({ key: 'topic:b' });
    expect(seen[0]).not.toBe(seen[1]);
    const first = await c.memory.pin({ key: 'topic:c' }, { idempotencyKey: 'my-key-1' });
    const infos: ResponseInfo[] = [];
    const again = await clientFor(s.live, { onResponse: (i) => infos.push(i) }).memory.pin(
      { key: 'topic:c' },
      { idempotencyKey: 'my-key-1' },
    );
    expect(again).toEqual(first);
    expect(infos[0]).toMatchObject({ idempotencyKey: 'my-key-1', replayed: true });
  });

  it('reads carry no Idempotency-Key', async () => {
    const seen: (string | undefined)[] = [];
    await clientFor(s.live, { onResponse: (i) => seen.push(i.idempotencyKey) }).memory.list();
    expect(seen).toEqual([undefined]);
  });
});
