// The key service on the real lowdb store (a temp dir) with a driven clock: a key is stored as
// a hash and authenticates to exactly its kind and scopes; a rotation's old secret works until
// its grace ends (to the millisecond) and an earlier rotation keeps its earlier end; revocation
// is instant and final; a test key changes no credential and is answered a would-be key that
// is stored nowhere; last_used_at is written at most once a minute; a key kept in memory is
// answered at once only while nothing changed it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scopes as allScopes, type KeySecret, type Scope } from '@presence/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, iso } from '../clock/clock';
import { createKeystore } from '../keystore/keystore';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { StorePort } from '../store/store-port';
import { hashSecret } from './key-secret';
import { createKeyService, type KeyService, type Principal, type SecretRetired } from './key-service';
import { requireScope } from './scopes';

const clock = createManualClock(Date.parse('2026-02-01T12:00:00Z'));
let dir: string;
let store: StorePort;
let keys: KeyService;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'keys-'));
  store = await createLowdbStore({ dataDir: dir, fsync: false, keystore: createKeystore(randomBytes(32)) });
  keys = createKeyService({ store, clock });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const make = (scopes: readonly Scope[] = allScopes, kind: 'live' | 'test' = 'live', accountId = 'acct') =>
  keys.create(accountId, { kind, name: `${kind} key`, scopes });
/** The principal of an admin key of `accountId` (what a route would hand the service). */
async function admin(accountId = 'acct'): Promise<{ key: KeySecret; by: Principal }> {
  const key = await make(allScopes, 'live', accountId);
  return { key, by: await keys.authenticate(key.secret) };
}
const authError = (secret: string | undefined) =>
  keys.authenticate(secret).then(
    () => 'authenticated',
    (e) => `${e.type}: ${e.detail}`,
  );

describe('create', () => {
  it('answers the secret once and stores only its hash', async () => {
    const k = await make(['talk', 'memory:read']);
    expect(k.secret).toMatch(/^prs_live_[0-9A-Za-z]{40}$/);
    expect(k).toMatchObject({
      id: expect.stringMatching(/^key_\w{16}$/),
      kind: 'live',
      scopes: ['talk', 'memory:read'],
      last4: k.secret.slice(-4),
      state: 'active',
      created_at: iso(clock.now()),
      last_used_at: null,
      grace_until: null,
    });
    const stored = await store.getKey(k.id);
    expect(stored?.secrets).toEqual([{ hash: hashSecret(k.secret), last4: k.secret.slice(-4), valid_until: null }]);
    expect(JSON.stringify(stored)).not.toContain(k.secret.slice(9));
    expect(await keys.isStored(k.secret)).toBe(true);
    const { secret: _shownOnce, ...view } = k;
    expect(await keys.list('acct')).toEqual([view]);
  });

  it('refuses a given secret that is malformed or of the other kind', async () => {
    const live = `prs_live_${'a'.repeat(40)}`;
    await expect(keys.create('acct', { kind: 'test', name: 'x', scopes: ['talk'] }, live)).rejects.toThrow(/not a test key secret/);
    await expect(keys.create('acct', { kind: 'live', name: 'x', scopes: ['talk'] }, 'prs_live_short')).rejects.toThrow();
    expect((await keys.create('acct', { kind: 'live', name: 'x', scopes: ['talk'] }, live)).secret).toBe(live);
  });
});

describe('authenticate', () => {
  it('resolves a secret to its key with exactly the scopes it was made with, and no more', async () => {
    const k = await make(['talk', 'wallet:read']);
    const p = await keys.authenticate(k.secret);
    expect(p).toEqual({
      keyId: k.id,
      accountId: 'acct',
      kind: 'live',
      scopes: ['talk', 'wallet:read'],
      validUntil: null,
      secretHash: hashSecret(k.secret),
    });
    expect(() => requireScope(p, 'wallet:read')).not.toThrow();
    expect(() => requireScope(p, { anyOf: ['admin', 'talk'] })).not.toThrow();
    for (const need of ['wallet:act', 'admin', 'memory:write'] as const) {
      expect(() => requireScope(p, need)).toThrow(expect.objectContaining({ type: 'scope', extra: { missing: [need] } }));
    }
    expect((await keys.authenticate((await make(['talk'], 'test')).secret)).kind).toBe('test');
  });

  it('says why a secret is refused', async () => {
    expect(await authError(undefined)).toMatch(/^auth: missing Authorization/);
    expect(await authError('Bearer nope')).toMatch(/^auth: malformed key/);
    expect(await authError(`prs_live_${'Z'.repeat(40)}`)).toBe('auth: unknown key');
  });

  it('writes last_used_at at most once a minute per key', async () => {
    const k = await make(['talk']);
    const start = clock.now();
    const lastUsed = async () => {
      await store.updateKey(k.id, (r) => r); // queued behind the service's own write
      return (await store.getKey(k.id))?.last_used_at;
    };
    await keys.authenticate(k.secret);
    expect(await lastUsed()).toBe(iso(start));
    clock.advance(59_999);
    await keys.authenticate(k.secret);
    expect(await lastUsed()).toBe(iso(start));
    clock.advance(1);
    await keys.authenticate(k.secret);
    expect(await lastUsed()).toBe(iso(start + 60_000));
  });
});

describe('authenticateAtOnce', () => {
  it('answers a key read within the last second exactly as authenticate does, and nothing else', async () => {
    const k = await make(['talk']);
    expect(keys.authenticateAtOnce(k.secret)).toBeUndefined(); // never read
    const p = await keys.authenticate(k.secret);
    expect(keys.authenticateAtOnce(k.secret)).toEqual(p);
    expect(keys.authenticateAtOnce(`prs_live_${'Z'.repeat(40)}`)).toBeUndefined();
    clock.advance(1_000);
    expect(keys.authenticateAtOnce(k.secret)).toBeUndefined(); // read again by authenticate
    expect(await keys.authenticate(k.secret)).toEqual(p);
    expect(keys.authenticateAtOnce(k.secret)).toEqual(p);
  });

  it('forgets a revoked or rotated key as the change is answered, and a secret whose grace ended', async () => {
    const { by } = await admin();
    const k = await make(['talk']);
    await keys.authenticate(k.secret);
    const t0 = clock.now();
    const rotated = await keys.rotate(by, k.id, 0.5);
    expect(keys.authenticateAtOnce(k.secret)).toBeUndefined();
    expect((await keys.authenticate(k.secret)).validUntil).toBe(t0 + 500);
    expect(keys.authenticateAtOnce(k.secret)).toMatchObject({ validUntil: t0 + 500 });
    clock.advance(500);
    expect(keys.authenticateAtOnce(k.secret)).toBeUndefined();
    expect(await authError(k.secret)).toBe('auth: this key was rotated and its grace window has ended');
    await keys.authenticate(rotated.secret);
    expect(keys.authenticateAtOnce(rotated.secret)).toMatchObject({ keyId: k.id });
    await keys.revoke(by, k.id);
    expect(keys.authenticateAtOnce(rotated.secret)).toBeUndefined();
    expect(await authError(rotated.secret)).toBe('auth: this key was revoked');
    expect(keys.authenticateAtOnce(rotated.secret)).toBeUndefined();
  });
});

describe('rotate', () => {
  it('issues a new secret at once and keeps the old one working until its grace ends, to the millisecond', async () => {
    const { key, by } = await admin();
    const retired: SecretRetired[] = [];
    keys.onRotate((r) => retired.push(r));
    const t0 = clock.now();
    const rotated = await keys.rotate(by, key.id, 300);
    expect(rotated.secret).not.toBe(key.secret);
    expect(rotated).toMatchObject({ id: key.id, scopes: key.scopes, last4: rotated.secret.slice(-4), grace_until: iso(t0 + 300_000) });
    expect(retired).toEqual([{ keyId: key.id, secretHash: hashSecret(key.secret), validUntil: t0 + 300_000 }]);
    expect((await keys.authenticate(rotated.secret)).validUntil).toBeNull();
    clock.advance(299_999);
    expect((await keys.authenticate(key.secret)).validUntil).toBe(t0 + 300_000);
    expect(await keys.secretValidity(by)).toEqual({ validUntil: t0 + 300_000 });
    clock.advance(1);
    expect(await authError(key.secret)).toBe('auth: this key was rotated and its grace window has ended');
    expect(await keys.secretValidity(by)).toBeNull();
    expect((await keys.list('acct'))[0]?.grace_until).toBeNull();
    expect(await keys.authenticate(rotated.secret)).toMatchObject({ keyId: key.id, scopes: key.scopes });
  });

  it('keeps an earlier rotation’s earlier end and drops secrets whose grace is over', async () => {
    const { key, by } = await admin();
    const t0 = clock.now();
    const second = await keys.rotate(by, key.id, 100);
    clock.advance(50_000);
    const third = await keys.rotate(by, key.id, 600);
    expect((await store.getKey(key.id))?.secrets.map((s) => s.valid_until)).toEqual([t0 + 100_000, t0 + 650_000, null]);
    clock.advance(50_000);
    expect(await authError(key.secret)).toMatch(/grace window has ended/);
    expect((await keys.authenticate(second.secret)).validUntil).toBe(t0 + 650_000);
    await keys.rotate(by, key.id, 0);
    const hashes = (await store.getKey(key.id))?.secrets.map((s) => s.hash);
    expect(hashes).not.toContain(hashSecret(key.secret));
    // Grace 0: the secret it retired stops at once.
    expect(hashes).not.toContain(hashSecret(third.secret));
    expect(await authError(third.secret)).toMatch(/^auth: /);
  });

  it('refuses a revoked key, a key of another account and a test key caller', async () => {
    const { key, by } = await admin();
    const other = await make(allScopes, 'live', 'other');
    await expect(keys.rotate(by, other.id, 60)).rejects.toMatchObject({ type: 'not_found' });
    const testBy = await keys.authenticate((await make(allScopes, 'test')).secret);
    await expect(keys.rotate(testBy, key.id, 60)).rejects.toMatchObject({ type: 'scope' });
    const victim = await make(['talk']);
    await keys.revoke(by, victim.id);
    await expect(keys.rotate(by, victim.id, 60)).rejects.toMatchObject({ type: 'conflict' });
    expect(await keys.authenticate(key.secret)).toMatchObject({ validUntil: null });
  });
});

describe('revoke', () => {
  it('is instant for every secret of the key, tells listeners, and is final', async () => {
    const { by } = await admin();
    const k = await make(['talk']);
    const rotated = await keys.rotate(by, k.id, 600);
    const revoked: string[] = [];
    keys.onRevoke((id) => revoked.push(id));
    const view = await keys.revoke(by, k.id);
    expect(view.state).toBe('revoked');
    expect(revoked).toEqual([k.id]);
    expect(await authError(k.secret)).toBe('auth: this key was revoked');
    expect(await authError(rotated.secret)).toBe('auth: this key was revoked');
    expect(await keys.secretValidity({ keyId: k.id, secretHash: hashSecret(rotated.secret) })).toBeNull();
    const revokedAt = (await store.getKey(k.id))?.revoked_at;
    expect(revokedAt).toBe(iso(clock.now()));
    clock.advance(5_000);
    expect((await keys.revoke(by, k.id)).state).toBe('revoked');
    expect((await store.getKey(k.id))?.revoked_at).toBe(revokedAt);
  });

  it('reaches only the caller’s own account, and a test key may not revoke', async () => {
    const { by } = await admin();
    const other = await make(['talk'], 'live', 'other');
    await expect(keys.revoke(by, other.id)).rejects.toMatchObject({ type: 'not_found' });
    const testBy = await keys.authenticate((await make(allScopes, 'test')).secret);
    await expect(keys.revoke(testBy, testBy.keyId)).rejects.toMatchObject({ type: 'scope' });
    expect((await keys.authenticate(other.secret)).keyId).toBe(other.id);
  });

  it('lets a key revoke itself', async () => {
    const k = await make(['talk']);
    const self = await keys.authenticate(k.secret);
    expect((await keys.revoke(self, self.keyId)).state).toBe('revoked');
    expect(await authError(k.secret)).toBe('auth: this key was revoked');
  });
});

describe('issue', () => {
  it('by a live key stores a real key', async () => {
    const { by } = await admin();
    const k = await keys.issue(by, { kind: 'test', name: 'ci', scopes: ['talk'] });
    expect(k.secret).toMatch(/^prs_test_/);
    expect(await keys.authenticate(k.secret)).toMatchObject({ kind: 'test', scopes: ['talk'], accountId: 'acct' });
  });

  it('by a test key answers a would-be key of all zeros and stores nothing', async () => {
    const testBy = await keys.authenticate((await make(allScopes, 'test')).secret);
    const before = await keys.list('acct');
    const k = await keys.issue(testBy, { kind: 'live', name: 'dry', scopes: ['wallet:act'] });
    expect(k).toMatchObject({ id: 'key_0000000000000000', kind: 'live', scopes: ['wallet:act'], last4: '0000', state: 'active' });
    expect(k.secret).toBe(`prs_live_${'0'.repeat(40)}`);
    expect(await keys.list('acct')).toEqual(before);
    expect(await keys.isStored(k.secret)).toBe(false);
    expect(await authError(k.secret)).toBe('auth: unknown key');
  });
});
