// Abuse limits (issue 13), with a driven clock and many loopback source addresses:
// failed authentications per client address, and link-code redemptions per client address
// (no server-wide budget: codes have 100 bits; defaults throughout).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-test-server';
import { callFrom } from './from-address';
import { type Answer, createManualClock } from './harness';

const randomKey = () => `prs_live_${randomBytes(24).toString('base64url')}`;
const limited = (r: Answer, maxRetryS: number) => {
  expect([r.status, r.headers.get('content-type'), r.json?.type]).toEqual([429, 'application/problem+json; charset=utf-8', 'rate_limited']);
  const retry = Number(r.headers.get('retry-after'));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(maxRetryS);
};

// One server for both: the limits are per address, and each part uses addresses of its own.
const clock = createManualClock(Date.now());
const s = useTestServer({ clock, env: { PRESENCE_RATE_LIMIT: '10000/60s' } });

describe('failed authentications, per client address (60 a minute)', () => {
  const me = (from: string, key?: string) => callFrom(from, s.url, 'GET', '/v1/presence/me', key ? { key } : {});

  it('answers 401 sixty times, then 429 with Retry-After — also for a valid key from that address', async () => {
    for (let i = 0; i < 60; i++) expect((await me('127.0.0.2', randomKey())).status).toBe(401);
    const r = await me('127.0.0.2', randomKey());
    limited(r, 60);
    expect(r.json.limit).toBe('auth_failures');
    expect(r.headers.get('connection')).toBe('close'); // a guessing loop keeps no connection
    // Not looked at: a search cannot tell a hit from a miss once the budget is spent.
    limited(await me('127.0.0.2', s.live), 60);
    limited(await me('127.0.0.2', 'not a bearer token'), 60);
    // No key presented is no guess: still a plain 401. Public routes still answer.
    expect((await me('127.0.0.2')).status).toBe(401);
    expect((await callFrom('127.0.0.2', s.url, 'GET', '/v1/health')).status).toBe(200);
    // Other addresses are not affected.
    expect((await me('127.0.0.3', s.live)).status).toBe(200);
  });

  it('once the window passes, the address is served again', async () => {
    clock.advance(60_000);
    expect((await me('127.0.0.2', s.live)).status).toBe(200);
    expect((await me('127.0.0.2', randomKey())).status).toBe(401);
  });

  it('a parallel burst of wrong keys gets exactly 60 answers of 401, the rest 429', async () => {
    const answers = await Promise.all(Array.from({ length: 300 }, () => me('127.0.0.4', randomKey())));
    const count = (status: number) => answers.filter((a) => a.status === status).length;
    expect([count(401), count(429)]).toEqual([60, 240]);
  });

  it('keys tried on unknown routes count too, so they cannot test keys past the limit', async () => {
    for (let i = 0; i < 60; i++) expect((await callFrom('127.0.0.5', s.url, 'GET', '/v1/nope', { key: randomKey() })).status).toBe(404);
    limited(await me('127.0.0.5', randomKey()), 60);
    // With the budget spent, an unknown route no longer tells a valid key from a wrong one.
    const probe = await callFrom('127.0.0.5', s.url, 'GET', '/v1/nope', { key: s.live });
    expect([probe.status, probe.headers.get('presence-mode')]).toEqual([404, null]);
  });
});

describe('failed link redemptions: per address only', () => {
  const newCode = async () => {
    const r = await callFrom('127.0.0.1', s.url, 'POST', '/v1/links', { key: s.live, body: { ttl_s: 86_400 } });
    expect(r.status).toBe(201);
    return r.json.code as string;
  };
  const redeem = (from: string, code: string) =>
    callFrom(from, s.url, 'POST', `/v1/links/${code}/redeem`, { body: { surface: 'telegram', user_id: '42', name: 'ada' } });
  const wrong = (i: number) => `ZZZZ${String(1000 + i).replace(/[01]/g, '9')}`.padEnd(20, 'Z');

  it('100 failures from 20 addresses close nothing: codes are long enough that no server-wide budget is needed', async () => {
    const [a, b] = [await newCode(), await newCode()];
    for (let host = 1; host <= 20; host++) {
      for (let i = 0; i < 5; i++) expect((await redeem(`127.0.1.${host}`, wrong(i))).status).toBe(404);
    }
    // An address that failed, still within its own 10 a minute, redeems a good code; so does a fresh one.
    const dirty = await redeem('127.0.1.1', a);
    expect([dirty.status, dirty.json.name]).toEqual([200, 'telegram:ada']);
    const clean = await redeem('127.0.2.1', b);
    expect(clean.status).toBe(200);
  });

  it('one address gets 10 attempts a minute, then 429 until the window frees one', async () => {
    for (let i = 0; i < 10; i++) expect((await redeem('127.0.3.1', wrong(i))).status).toBe(404);
    limited(await redeem('127.0.3.1', wrong(11)), 60);
    expect((await redeem('127.0.3.2', wrong(11))).status).toBe(404);
    clock.advance(60_000);
    expect((await redeem('127.0.3.1', wrong(12))).status).toBe(404);
  });
});
