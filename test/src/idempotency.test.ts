// Idempotency-Key: byte-identical replay, 422 on a different request, one effect for 20
// concurrent duplicates, replay after a restart, after a client hung up mid-request, and
// of answers carrying secrets (which are sealed on disk), and expiry after 24 h.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, removeDir, startTestServer, type TestServer } from './harness';
import { until } from './wallet-helpers';

/**
 * Sends one request on a socket of its own and hangs up half-way (FIN) when told; `hungUp`
 * settles once the server has closed its side too, which Node's server does in the same turn
 * as it marks the request aborted: so the server has seen the hang-up, no time is guessed.
 */
function hangingRequest(base: string, method: string, url: string, headers: Record<string, string>, body?: string) {
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname);
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.on('error', () => undefined);
  const lines = [`${method} ${url} HTTP/1.1`, `host: ${hostname}:${port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
  return {
    hungUp: () => {
      socket.end();
      return closed;
    },
  };
}

describe('Idempotency-Key', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.close();
    removeDir(s.dataDir);
  });

  const memoryEvents = async () => (await s.core.events.bounds({ accountId: 'default', kind: 'live' })).latest;

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

  it('replays a retry whose body has the same fields in another order (serializers do not keep order)', async () => {
    const first = await call(s.url, 'POST', '/v1/memory/pin', {
      key: s.live,
      idempotencyKey: 'k-order',
      body: { key: 'token:WETH', note: 'n' },
    });
    const again = await call(s.url, 'POST', '/v1/memory/pin', {
      key: s.live,
      idempotencyKey: 'k-order',
      body: { note: 'n', key: 'token:WETH' },
    });
    expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([first.status, 'true', first.text]);
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

  // Node marks a request aborted only if its body was not fully read, so a write without a
  // body (DELETE) is the case where Fastify's onRequestAbort fires after the key was claimed.
  it.each([
    {
      what: 'a write with a body',
      op: 'pin' as const,
      method: 'POST',
      url: '/v1/memory/pin',
      body: '{"key":"topic:abort","note":"slow"}',
      marker: { url: '/v1/memory/pin', body: '{"key":"topic:abort-marker","note":"marker"}', events: 1 },
    },
    {
      what: 'a write without a body',
      op: 'forget' as const,
      method: 'DELETE',
      url: '/v1/memory/topic:abort',
      body: undefined,
      // Nothing stored under it: a 404, no event.
      marker: { url: '/v1/memory/topic:abort-marker-none', body: undefined, events: 0 },
    },
  ])(
    'a client that hangs up mid-request ($what) does not free its key: the retry waits for the first run and replays it',
    async ({ op, method, url, body, marker }) => {
      // The action is held at a gate, so the client can hang up while it runs.
      const memory = s.core.memory as unknown as Record<typeof op, (...args: unknown[]) => Promise<unknown>>;
      const original = memory[op];
      let calls = 0;
      /** The memory key of each call of the action that got past the gate's door. */
      const keys: string[] = [];
      let entered!: () => void;
      const inside = new Promise<void>((r) => {
        entered = r;
      });
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      memory[op] = async (...args) => {
        calls++;
        keys.push(String(args[1])); // (caller, key, …)
        entered();
        await gate;
        return original(...args);
      };
      try {
        const before = await memoryEvents();
        const key = `k-abort-${op}`;
        const headers: Record<string, string> = { authorization: `Bearer ${s.live}`, 'idempotency-key': key };
        if (body) headers['content-type'] = 'application/json';
        const send = () => fetch(s.url + url, { method, headers, body });
        const first = hangingRequest(s.url, method, url, headers, body);
        await inside;
        await first.hungUp();
        const retry = send();
        // A marker sent after the retry, under a key of its own: once it reaches the action,
        // a retry that did not wait for the first run would have reached it before.
        const markerHeaders = { ...headers, 'idempotency-key': `${key}-marker` };
        const markerSent = fetch(s.url + marker.url, { method, headers: markerHeaders, body: marker.body });
        await until(() => keys.length === 2, 10_000, 'the marker to reach the action');
        expect(keys).toEqual(['topic:abort', keys[1]]); // the retry waits; it does not run the action again
        expect(keys[1]).toMatch(/^topic:abort-marker/);
        release();
        await (await markerSent).text();
        const answer = await retry;
        const text = await answer.text();
        expect([answer.status, answer.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
        const again = await send();
        expect(await again.text()).toBe(text);
        expect(calls).toBe(2); // the first run and the marker
        expect((await memoryEvents()) - before).toBe(1 + marker.events);
      } finally {
        memory[op] = original;
        release();
      }
    },
  );

  it('answers carrying secrets replay byte for byte but are sealed on disk', async () => {
    const created = await call(s.url, 'POST', '/v1/keys', {
      key: s.live,
      idempotencyKey: 'k-secret',
      body: { name: 'sealed', scopes: ['talk'] },
    });
    const rotated = await call(s.url, 'POST', `/v1/keys/${created.json.id}/rotate`, { key: s.live, idempotencyKey: 'k-rotate', body: {} });
    const link = await call(s.url, 'POST', '/v1/links', { key: s.live, idempotencyKey: 'k-link', body: {} });
    expect([created.status, rotated.status, link.status]).toEqual([201, 200, 201]);
    const secrets = [created.json.secret, rotated.json.secret, link.json.code] as string[];
    expect(secrets.every((x) => typeof x === 'string' && x.length >= 8)).toBe(true);

    const onDisk = readFileSync(path.join(s.dataDir, 'data', 'idempotency', 'default.jsonl'), 'utf8');
    expect(onDisk).toContain('k-secret');
    for (const secret of secrets) expect(onDisk).not.toContain(secret);

    const replays = await Promise.all([
      call(s.url, 'POST', '/v1/keys', { key: s.live, idempotencyKey: 'k-secret', body: { name: 'sealed', scopes: ['talk'] } }),
      call(s.url, 'POST', `/v1/keys/${created.json.id}/rotate`, { key: s.live, idempotencyKey: 'k-rotate', body: {} }),
      call(s.url, 'POST', '/v1/links', { key: s.live, idempotencyKey: 'k-link', body: {} }),
    ]);
    expect(replays.map((r) => r.text)).toEqual([created.text, rotated.text, link.text]);
    expect(replays.every((r) => r.headers.get('idempotent-replayed') === 'true')).toBe(true);
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

describe('Idempotency-Key expiry', () => {
  it('replays for 24 h on the driven clock, then runs again; upkeep drops the old answer', async () => {
    const clock = createManualClock();
    const s = await startTestServer({ clock });
    try {
      const pin = (note: string) =>
        call(s.url, 'POST', '/v1/memory/pin', { key: s.live, idempotencyKey: 'k-day', body: { key: 'topic:day', note } });
      const first = await pin('one');
      clock.advance(24 * 3600_000 - 1_000);
      const replayed = await pin('one');
      expect([replayed.text, replayed.headers.get('idempotent-replayed')]).toEqual([first.text, 'true']);

      clock.advance(2_000);
      // Expired: the key is free again, so a different request under it runs instead of 422.
      const fresh = await pin('two');
      expect([fresh.status, fresh.headers.get('idempotent-replayed'), fresh.json.note]).toEqual([200, null, 'two']);

      clock.advance(24 * 3600_000 + 1_000);
      await s.core.maintain();
      const file = readFileSync(path.join(s.dataDir, 'data', 'idempotency', 'default.jsonl'), 'utf8');
      expect(file).not.toContain('k-day');
    } finally {
      await s.close();
      removeDir(s.dataDir);
    }
  });
});
