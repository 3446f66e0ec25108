// Red-team cases about client addresses, replayed (not timed) against a real server;
// red-team-postgres.test.ts runs them again on PostgreSQL.
// 3. nobody closes linking for everyone: wrong codes from many addresses leave a valid code
//    redeemable from a clean one (codes are long enough that no server-wide budget is needed).
// 4. behind a proxy, one client does not lock out all: with PRESENCE_TRUSTED_PROXIES the
//    per-address limits count the address the proxy forwards; without it (or from a peer that
//    is not trusted) forwarding headers are ignored.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Answer } from './harness';
import { removeDir, startTestServer, type TestServer } from './harness';

let servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers) {
    await s.close();
    removeDir(s.dataDir);
  }
  servers = [];
});
async function start(env: Record<string, string> = {}) {
  const s = await startTestServer({ env });
  servers.push(s);
  return s;
}

/** A request from loopback address `from` with extra headers (a proxy's forwarding headers). */
function send(s: TestServer, from: string, method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(url, s.url),
      { method, localAddress: from, agent: false, headers: { ...headers, ...(text ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          data += d;
        });
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = JSON.parse(data);
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: new Headers(), text: data, json });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const wrongKey = { authorization: `Bearer prs_live_${'x'.repeat(40)}` };

describe('4. client addresses behind a proxy', () => {
  it('with the proxy trusted, a client exhausting its failed authentications locks out only itself', async () => {
    const s = await start({ PRESENCE_TRUSTED_PROXIES: '127.0.0.9', PRESENCE_AUTH_FAIL_LIMIT: '3/60s' });
    for (let i = 0; i < 4; i++) await send(s, '127.0.0.9', 'GET', '/v1/presence/me', { ...wrongKey, 'x-forwarded-for': '203.0.113.5' });
    const locked = await send(s, '127.0.0.9', 'GET', '/v1/presence/me', {
      authorization: `Bearer ${s.live}`,
      'x-forwarded-for': '203.0.113.5',
    });
    expect([locked.status, locked.json.limit]).toEqual([429, 'auth_failures']);
    const other = await send(s, '127.0.0.9', 'GET', '/v1/presence/me', {
      authorization: `Bearer ${s.live}`,
      'x-forwarded-for': '203.0.113.6',
    });
    expect(other.status).toBe(200);
    // An address the client wrote itself, to the left of what the proxy appended, changes nothing.
    const spoofed = await send(s, '127.0.0.9', 'GET', '/v1/presence/me', {
      authorization: `Bearer ${s.live}`,
      'x-forwarded-for': '198.51.100.1, 203.0.113.5',
    });
    expect(spoofed.status).toBe(429);
  });

  it('with the proxy trusted, a client exhausting its redeem attempts locks out only itself', async () => {
    const s = await start({ PRESENCE_TRUSTED_PROXIES: '127.0.0.0/30, 127.0.0.9' });
    const body = { surface: 'telegram', user_id: '1', name: 'x' };
    let last: Answer | null = null;
    for (let i = 0; i < 12; i++)
      last = await send(s, '127.0.0.9', 'POST', '/v1/links/ABCDEFGHJKLMNPQRSTUV/redeem', { 'x-forwarded-for': '203.0.113.7' }, body);
    expect(last?.status).toBe(429);
    const other = await send(s, '127.0.0.9', 'POST', '/v1/links/ABCDEFGHJKLMNPQRSTUV/redeem', { 'x-forwarded-for': '203.0.113.8' }, body);
    expect(other.status).toBe(404);
  });

  it('from a peer that is not trusted (or with no proxy configured), forwarding headers are ignored', async () => {
    for (const env of [{}, { PRESENCE_TRUSTED_PROXIES: '127.0.0.9' }] as Record<string, string>[]) {
      const s = await start({ ...env, PRESENCE_AUTH_FAIL_LIMIT: '3/60s' });
      // A client rotating its own X-Forwarded-For and Forwarded does not get a fresh budget each time.
      for (let i = 0; i < 4; i++)
        await send(s, '127.0.0.4', 'GET', '/v1/presence/me', {
          ...wrongKey,
          'x-forwarded-for': `203.0.113.${i}`,
          forwarded: `for=198.51.100.${i}`,
        });
      const locked = await send(s, '127.0.0.4', 'GET', '/v1/presence/me', {
        authorization: `Bearer ${s.live}`,
        'x-forwarded-for': '203.0.113.200',
      });
      expect(locked.status).toBe(429);
    }
  });
});

describe('3. link guessing', () => {
  it('200 wrong codes from 200 addresses, then more from fresh ones: a valid code still redeems from a clean address', async () => {
    const s = await start();
    const body = { surface: 'telegram', user_id: '7', name: 'ada' };
    const wrong = 'A'.repeat(20);
    for (let i = 0; i < 200; i++) {
      const r = await send(s, `127.0.${1 + Math.floor(i / 250)}.${(i % 250) + 2}`, 'POST', `/v1/links/${wrong}/redeem`, {}, body);
      expect(r.status).toBe(404);
    }
    for (let i = 0; i < 20; i++) await send(s, `127.0.3.${i + 2}`, 'POST', `/v1/links/${wrong}/redeem`, {}, body);
    const made = await send(s, '127.0.0.1', 'POST', '/v1/links', { authorization: `Bearer ${s.live}` }, {});
    expect(made.status).toBe(201);
    expect(made.json.code).toMatch(/^[A-HJ-NP-Z2-9]{20}$/);
    const redeemed = await send(s, '127.0.4.2', 'POST', `/v1/links/${made.json.code}/redeem`, {}, body);
    expect([redeemed.status, redeemed.json.name]).toEqual([200, 'telegram:ada']);
  });
});
