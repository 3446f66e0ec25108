// One account's size never costs another: each account's records are in documents of its own,
// so a write rewrites only what that account keeps. A data directory from the shared-document
// layout (everything in accounts.json, keys.json, wallets.json, links.json) is moved over at
// start, and a start interrupted part-way through the move does it again from the old files.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createKeystore } from '../keystore/keystore';
import type { AccountRecord, KeyRecord, LinkRecord, WalletRecord } from './documents';
import { createLowdbStore } from './lowdb/lowdb-store';
import type { StorePort } from './store-port';

// Records every document write (file and size); the writes themselves go through unchanged.
const written = vi.hoisted(() => [] as { file: string; bytes: number }[]);
vi.mock('./durable-file', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./durable-file')>();
  return {
    ...actual,
    async writeFileAtomic(file: string, text: string, options?: { fsync?: boolean }) {
      written.push({ file, bytes: Buffer.byteLength(text) });
      return actual.writeFileAtomic(file, text, options);
    },
  };
});

const account = (id: string, preferences: AccountRecord['presence']['preferences'] = {}): AccountRecord => ({
  id,
  name: id,
  created_at: new Date(0).toISOString(),
  presence: { name: 'p', model: 'local', preferences },
  policy: null,
});
const key = (id: string, accountId: string, hash: string): KeyRecord => ({
  id,
  account_id: accountId,
  kind: 'live',
  name: `${id}-name`,
  scopes: ['talk'],
  secrets: [{ hash, last4: 'abcd', valid_until: null }],
  state: 'active',
  created_at: new Date(0).toISOString(),
  last_used_at: null,
  revoked_at: null,
});
const wallet = (accountId: string): WalletRecord => ({
  account_id: accountId,
  address: `0x${'1'.repeat(40)}`,
  key: { iv: 'aXY=', tag: 'dGFn', data: 'ZGF0YQ==' },
  created_at: new Date(0).toISOString(),
  funded: true,
});
const link = (hash: string, accountId: string, expires_at = 10_000): LinkRecord => ({
  hash,
  account_id: accountId,
  scopes: ['talk'],
  created_at: 0,
  expires_at,
  redeemed_at: null,
});
/** Preferences as large as the limits allow: 50 keys of 64 characters, 16 KiB in all. */
const maximal = () =>
  Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${String(i).padStart(2, '0')}${'k'.repeat(62)}`, 'v'.repeat(250)]));
const policyPut = (s: StorePort, id: string) =>
  s.updateAccount(id, (a) => ({
    ...a,
    policy: {
      per_tx_cap: '50 USD',
      confirm_over: '10 USD',
      daily_cap: '200 USD',
      deny: [],
      withdraw_allowlist: [],
      max_slippage_bps: 100,
      confirm_timeout_s: 600,
      version: (a.policy?.version ?? 0) + 1,
      updated_at: new Date(0).toISOString(),
    },
  }));

describe('per-account documents', () => {
  let dir: string;
  let store: StorePort;
  const keystore = createKeystore(randomBytes(32));
  const data = (...p: string[]) => path.join(dir, 'data', ...p);
  /** The account index as the store keeps it: one line per account (accounts.jsonl). */
  const accountIndex = () => ({
    accounts: readFileSync(data('accounts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  });
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'store-accounts-'));
    store = await createLowdbStore({ dataDir: dir, keystore });
    written.length = 0;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a write rewrites only the writing account's document, whatever other accounts keep", async () => {
    await store.createAccount(account('quiet'));
    await store.createAccount(account('heavy', maximal()));
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.insertKey(key(`key_heavy${i}`, 'heavy', `h${i}`))));
    await store.putLink(link('heavy-link', 'heavy'), 0);
    await store.createWallet(wallet('heavy'));

    written.length = 0;
    await policyPut(store, 'quiet');
    await store.insertKey(key('key_quiet', 'quiet', 'q1'));
    await store.updateKey('key_quiet', (k) => ({ ...k, last_used_at: new Date(1).toISOString() }));
    await store.putLink(link('quiet-link', 'quiet'), 0);
    await store.redeemLink('quiet-link', 1);
    await store.createWallet(wallet('quiet'));
    await store.markWalletFunded('quiet');

    expect(new Set(written.map((w) => path.relative(data(), w.file)))).toEqual(
      new Set(['accounts/quiet.json', 'keys/quiet.json', 'links/quiet.json', 'wallets/quiet.json']),
    );
    // Each write is the size of what the quiet account keeps, not of the heavy one's 16 KiB
    // of preferences or its 200 keys.
    expect(Math.max(...written.map((w) => w.bytes))).toBeLessThan(2_000);
    // Lookups across accounts still find everything, by id and by hash.
    expect((await store.findKeyBySecretHash('h199'))?.account_id).toBe('heavy');
    expect((await store.findKeyBySecretHash('q1'))?.last_used_at).toBe(new Date(1).toISOString());
    expect((await store.getKey('key_heavy7'))?.name).toBe('key_heavy7-name');
    expect(await store.redeemLink('heavy-link', 1)).toMatchObject({ account_id: 'heavy', redeemed_at: 1 });
  });

  it('the account index keeps only ids, names and creation times; everything else survives a restart', async () => {
    await store.createAccount(account('a', { stable: 'DAI' }));
    await policyPut(store, 'a');
    expect(accountIndex()).toEqual({
      accounts: [{ id: 'a', name: 'a', created_at: new Date(0).toISOString() }],
    });
    await store.insertKey(key('key_a', 'a', 'ha'));
    await store.putLink(link('la', 'a'), 0);
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect(await store.getAccount('a')).toMatchObject({ presence: { preferences: { stable: 'DAI' } }, policy: { version: 1 } });
    expect((await store.listAccounts()).map((a) => a.id)).toEqual(['a']);
    expect((await store.findKeyBySecretHash('ha'))?.id).toBe('key_a');
    expect(await store.redeemLink('la', 1)).toMatchObject({ account_id: 'a' });
    expect(await store.getAccount('nobody')).toBeNull();
    expect(await store.updateAccount('nobody', (a) => a)).toBeNull();
    await expect(store.createAccount(account('a'))).rejects.toThrow(/exists/);
  });

  it('a key write re-indexes that key: a rotated-away hash stops resolving once dropped', async () => {
    await store.insertKey(key('key_r', 'a', 'old'));
    await store.updateKey('key_r', (k) => ({ ...k, secrets: [{ hash: 'new', last4: 'wxyz', valid_until: null }] }));
    expect(await store.findKeyBySecretHash('old')).toBeNull();
    expect((await store.findKeyBySecretHash('new'))?.id).toBe('key_r');
    expect((await store.listKeys('a')).map((k) => k.secrets[0]?.hash)).toEqual(['new']);
  });

  it('every file it writes is 0600 and every directory 0700', async () => {
    await store.createAccount(account('a'));
    await store.insertKey(key('key_a', 'a', 'ha'));
    await store.putLink(link('la', 'a'), 0);
    await store.createWallet(wallet('a'));
    await store.changeMemory('a', ['topic:x'], () => ({
      put: [{ key: 'topic:x', tier: 'pinned', pinned_by: 'user', weight: 1, note: '', touches: 1, last_seen: 0 }],
      result: undefined,
    }));
    await store.appendEvent('a', { type: 'memory', data: {}, at: 0 });
    await store.appendThread('a', { kind: 'presence', at: 0, text: 'hi', cause: 'test' });
    await store.putIdempotencyRecord('a', { key: 'k', fingerprint: 'f', status: 200, headers: {}, body: '{}', created_at: 0 });
    const modes: Record<string, string> = {};
    const walk = (p: string) => {
      modes[path.relative(dir, p) || '.'] = (statSync(p).mode & 0o777).toString(8);
      if (statSync(p).isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
    };
    walk(data());
    expect(Object.keys(modes).length).toBeGreaterThan(15);
    for (const [p, mode] of Object.entries(modes))
      expect([p, mode]).toEqual([p, statSync(path.join(dir, p)).isDirectory() ? '700' : '600']);
  });
});

describe('moving a shared-document data directory to per-account documents', () => {
  let dir: string;
  const keystore = createKeystore(randomBytes(32));
  const data = (...p: string[]) => path.join(dir, 'data', ...p);
  /** The account index as the store keeps it: one line per account (accounts.jsonl). */
  const accountIndex = () => ({
    accounts: readFileSync(data('accounts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  });
  const oldAccounts = [
    { ...account('default', { stable: 'DAI', risk: 3 }), policy: { ...policyFixture(), version: 4 } },
    account('acme', { theme: true }),
  ];
  const oldKeys = [key('key_d1', 'default', 'hd1'), key('key_d2', 'default', 'hd2'), key('key_a1', 'acme', 'ha1')];
  const oldWallets = [wallet('default')];
  /** Writes the old layout, as an earlier version left it. */
  const writeOldLayout = () => {
    mkdirSync(data(), { recursive: true });
    writeFileSync(data('accounts.json'), JSON.stringify({ accounts: oldAccounts }, null, 2));
    writeFileSync(data('keys.json'), JSON.stringify({ keys: oldKeys }, null, 2));
    writeFileSync(data('wallets.json'), JSON.stringify({ wallets: oldWallets }, null, 2));
    const plain = createHash('sha256').update('ABCDEFGH').digest('hex');
    writeFileSync(data('links.json'), JSON.stringify({ links: [link(plain, 'default', Date.now() + 600_000)] }, null, 2));
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'store-migrate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const expectMoved = async (store: StorePort) => {
    expect(await store.listAccounts()).toEqual(oldAccounts);
    expect(await store.getAccount('default')).toEqual(oldAccounts[0]);
    expect(accountIndex().accounts).toEqual(oldAccounts.map(({ id, name, created_at }) => ({ id, name, created_at })));
    expect(await store.listKeys('default')).toEqual(oldKeys.slice(0, 2));
    expect(await store.listKeys('acme')).toEqual(oldKeys.slice(2));
    expect((await store.findKeyBySecretHash('ha1'))?.id).toBe('key_a1');
    expect(await store.getWallet('default')).toEqual(oldWallets[0]);
    expect(await store.getWallet('acme')).toBeNull();
    for (const old of ['keys.json', 'wallets.json', 'links.json']) expect(existsSync(data(old))).toBe(false);
    expect(readdirSync(data('accounts')).sort()).toEqual(['acme.json', 'default.json']);
    expect(readdirSync(data('keys')).sort()).toEqual(['acme.json', 'default.json']);
  };

  it('moves every account, key and wallet, drops the plain-hashed link codes, and is not redone', async () => {
    writeOldLayout();
    let store = await createLowdbStore({ dataDir: dir, keystore });
    await expectMoved(store);
    await policyPut(store, 'acme');
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect((await store.getAccount('acme'))?.policy?.version).toBe(1);
    await store.close();
  });

  it('a start interrupted part-way through the move does it again from the old documents', async () => {
    writeOldLayout();
    // What a crash after the first per-account documents could leave: stale or partial new
    // documents next to the old ones, which are still the whole truth.
    mkdirSync(data('keys'));
    writeFileSync(data('keys', 'default.json'), JSON.stringify({ keys: [oldKeys[0]] }));
    mkdirSync(data('accounts'));
    writeFileSync(data('accounts', 'default.json'), JSON.stringify({ account: account('default') }));
    const store = await createLowdbStore({ dataDir: dir, keystore });
    await expectMoved(store);
    await store.close();
  });
});

function policyFixture() {
  return {
    per_tx_cap: '50 USD',
    confirm_over: '10 USD',
    daily_cap: '200 USD',
    deny: [{ action: 'send' as const }],
    withdraw_allowlist: [],
    max_slippage_bps: 100,
    confirm_timeout_s: 600,
    version: 1,
    updated_at: new Date(0).toISOString(),
  };
}
