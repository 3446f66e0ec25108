// What one account may keep, over HTTP against the real server: at the key cap POST /v1/keys
// and a link-code redemption answer 409 problem+json with `limit: keys_per_account`, and a
// revocation makes room; at the link-code cap POST /v1/links answers `links_per_account`.
// Small caps come from PRESENCE_MAX_KEYS_PER_ACCOUNT / PRESENCE_MAX_LINKS_PER_ACCOUNT (the
// defaults, 100 and 20, are core's accountLimits, tested there).
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-test-server';
import { type Answer, call } from './harness';

const s = useTestServer({ env: { PRESENCE_MAX_KEYS_PER_ACCOUNT: '4', PRESENCE_MAX_LINKS_PER_ACCOUNT: '2' } });

const newKey = (name: string) => call(s.url, 'POST', '/v1/keys', { key: s.live, body: { name, scopes: ['talk'] } });
const conflictAt = (r: Answer, limit: string) => {
  expect([r.status, r.headers.get('content-type'), r.json?.type, r.json?.limit]).toEqual([
    409,
    'application/problem+json; charset=utf-8',
    'conflict',
    limit,
  ]);
};

describe('account caps', () => {
  it('POST /v1/keys answers 409 keys_per_account at the cap; revoking a key makes room', async () => {
    // The first start made a live and a test key: two more reach the cap of 4.
    const made = [await newKey('a'), await newKey('b')];
    for (const m of made) expect(m.status).toBe(201);
    const refused = await newKey('c');
    conflictAt(refused, 'keys_per_account');
    expect(refused.json.detail).toBe('An account holds at most 4 keys that are not revoked; revoke one first.');
    // A link code (outstanding codes are not keys) redeems into a key: refused the same way.
    const link = await call(s.url, 'POST', '/v1/links', { key: s.live, body: {} });
    expect(link.status).toBe(201);
    const redeemed = await call(s.url, 'POST', `/v1/links/${link.json.code}/redeem`, {
      body: { surface: 'telegram', user_id: '42', name: 'ada' },
    });
    conflictAt(redeemed, 'keys_per_account');

    expect((await call(s.url, 'DELETE', `/v1/keys/${made[0]?.json.id}`, { key: s.live })).status).toBe(200);
    expect((await newKey('c')).status).toBe(201);
    conflictAt(await newKey('d'), 'keys_per_account');
  });

  it('POST /v1/links answers 409 links_per_account while the cap of codes is outstanding', async () => {
    // The code redeemed above was spent (then refused a key): none is outstanding.
    const first = await call(s.url, 'POST', '/v1/links', { key: s.live, body: {} });
    const second = await call(s.url, 'POST', '/v1/links', { key: s.live, body: {} });
    expect([first.status, second.status]).toEqual([201, 201]);
    const refused = await call(s.url, 'POST', '/v1/links', { key: s.live, body: {} });
    conflictAt(refused, 'links_per_account');
  });
});
