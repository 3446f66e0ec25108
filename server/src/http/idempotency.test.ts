// Idempotency-Key on writes: a duplicate gets the first answer's exact bytes, marked as a replay.
import { PresenceError } from '@presence/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test/test-app';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const pin = (key: string, body: object) =>
  t.app.inject({ method: 'POST', url: '/v1/memory/pin', headers: { ...bearer(t.live), 'idempotency-key': key }, payload: body });

describe('idempotency replay', () => {
  it('replays the first answer byte for byte with Idempotent-Replayed: true, without running the handler again', async () => {
    const first = await pin('pin-1', { key: 'pair:WETH-USDC', note: 'watch' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await pin('pin-1', { key: 'pair:WETH-USDC', note: 'watch' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
  });

  it('refuses the same key with a different body (idempotency_mismatch), as problem+json', async () => {
    await pin('pin-2', { key: 'a' });
    const r = await pin('pin-2', { key: 'b' });
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json()).toMatchObject({ type: 'idempotency_mismatch' });
  });

  it('replays for the same body with its keys in another order (serializers do not keep order)', async () => {
    const first = await pin('pin-3', { key: 'pair:WETH-USDC', note: 'watch' });
    expect(first.statusCode).toBe(200);
    const again = await pin('pin-3', { note: 'watch', key: 'pair:WETH-USDC' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const other = await pin('pin-3', { note: 'other', key: 'pair:WETH-USDC' });
    expect(other.json()).toMatchObject({ type: 'idempotency_mismatch' });
  });

  it('replays a stored 4xx too', async () => {
    const first = await t.app.inject({
      method: 'DELETE',
      url: '/v1/memory/pair:NEVER',
      headers: { ...bearer(t.live), 'idempotency-key': 'forget-1' },
    });
    expect(first.statusCode).toBe(404);
    const again = await t.app.inject({
      method: 'DELETE',
      url: '/v1/memory/pair:NEVER',
      headers: { ...bearer(t.live), 'idempotency-key': 'forget-1' },
    });
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });
});

describe('an answer whose record cannot be kept (the database went away after the work)', () => {
  it('is sent as it is, with its own status and body, not a bare 503 in its place', async () => {
    const claim = t.core.idempotency.claim;
    t.core.idempotency.claim = async (...args) => {
      const c = await claim(...args);
      if (c.kind !== 'proceed') return c;
      return {
        ...c,
        async complete() {
          c.abandon();
          throw new PresenceError('store_unavailable', 'the database failed during putIdempotencyRecord (57P01)', { retryAfter: 1 });
        },
      };
    };
    const r = await pin('pin-unkept', { key: 'pair:WETH-USDC', note: 'kept anyway' });
    expect([r.statusCode, r.headers['content-type']]).toEqual([200, 'application/json; charset=utf-8']);
    expect(r.json()).toMatchObject({ key: 'pair:WETH-USDC', note: 'kept anyway', changed: true });
    // Not kept, so not replayed: the key is free, and a duplicate runs (a no-op pin now).
    t.core.idempotency.claim = claim;
    const again = await pin('pin-unkept', { key: 'pair:WETH-USDC', note: 'kept anyway' });
    expect([again.statusCode, again.headers['idempotent-replayed'], again.json().changed]).toEqual([200, undefined, false]);
  });
});
