// The embedded store's write path: durable by default (file, rename and directory synced
// before a write resolves), group commit under concurrency, readers never see a document
// whose write has not succeeded, idempotency pruning that cannot lose a record put while it
// runs, and idempotency answers sealed at rest.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { intentRecord } from '../../testing/fixtures';
import { createKeystore } from '../keystore/keystore';
import type { AccountRecord, IdempotencyRecord, MemoryEntry } from './documents';
import { createLowdbStore, MAX_OPEN_ACCOUNT_LOGS } from './lowdb/lowdb-store';
import type { StorePort } from './store-port';

// Lets a test hold or fail a document write; every other write goes through unchanged.
const hooks = vi.hoisted(() => ({ beforeWrite: null as null | ((file: string) => Promise<void>) }));
vi.mock('./durable-file', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./durable-file')>();
  return {
    ...actual,
    async writeFileAtomic(file: string, text: string, options?: { fsync?: boolean }) {
      await hooks.beforeWrite?.(file);
      return actual.writeFileAtomic(file, text, options);
    },
  };
});

const account = (id: string): AccountRecord => ({
  id,
  name: id,
  created_at: new Date(0).toISOString(),
  presence: { name: 'p', model: 'local', preferences: {} },
  policy: null,
});
const entry = (key: string): MemoryEntry => ({ key, tier: 'pinned', pinned_by: 'user', weight: 1, note: '', touches: 1, last_seen: 0 });
const answer = (key: string, created_at: number, body = '{}'): IdempotencyRecord => ({
  key,
  fingerprint: `fp-${key}`,
  status: 200,
  headers: { 'content-type': 'application/json' },
  body,
  created_at,
});
const addMemory = (store: StorePort, key: string) => store.changeMemory('a', [key], () => ({ put: [entry(key)], result: undefined }));
/** A write to account a's own document (data/accounts/a.json): one preference more. */
const addPreference = async (store: StorePort, key: string) => {
  if (!(await store.getAccount('a'))) await store.createAccount(account('a'));
  return store.updateAccount('a', (a) => ({ ...a, presence: { ...a.presence, preferences: { ...a.presence.preferences, [key]: true } } }));
};
const preferences = async (store: StorePort) => Object.keys((await store.getAccount('a'))?.presence.preferences ?? {});
const deferred = () => {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe('lowdb store', () => {
  let dir: string;
  const keystore = createKeystore(randomBytes(32));
  let store: StorePort;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'store-'));
    store = await createLowdbStore({ dataDir: dir, keystore });
  });
  afterEach(async () => {
    hooks.beforeWrite = null;
    vi.restoreAllMocks();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  type SyncCall = { kind: 'sync' | 'datasync'; file: string };
  /** Spies on fsync/fdatasync of every file handle, recording which path was synced (Linux: /proc). */
  async function syncSpy(observe: (call: SyncCall) => void = () => undefined) {
    const probe = await open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe);
    await probe.close();
    const calls: SyncCall[] = [];
    for (const kind of ['sync', 'datasync'] as const) {
      const real = proto[kind];
      vi.spyOn(proto, kind).mockImplementation(function (this: { fd: number }) {
        const call = { kind, file: readlinkSync(`/proc/self/fd/${this.fd}`) };
        calls.push(call);
        observe(call);
        return real.call(this);
      });
    }
    return calls;
  }

  it.runIf(process.platform === 'linux')('by default a document write syncs the temp file, renames, then syncs the directory', async () => {
    await store.createAccount(account('x'));
    const accountFile = path.join(dir, 'data', 'accounts', 'x.json');
    let renamedBeforeDirSync = false;
    const calls = await syncSpy((call) => {
      if (call.file === path.join(dir, 'data', 'accounts'))
        renamedBeforeDirSync = !existsSync(`${accountFile}.tmp`) && readFileSync(accountFile, 'utf8').includes('"Ada"');
    });
    await store.updateAccount('x', (a) => ({ ...a, presence: { ...a.presence, name: 'Ada' } }));
    expect(calls).toEqual([
      { kind: 'sync', file: `${accountFile}.tmp` },
      { kind: 'sync', file: path.join(dir, 'data', 'accounts') },
    ]);
    expect(renamedBeforeDirSync).toBe(true);
  });

  it.runIf(process.platform === 'linux')('by default an appended line is fdatasync’ed before the append resolves', async () => {
    await store.appendEvent('a', { type: 'memory', data: {}, at: 1 });
    const calls = await syncSpy();
    let synced = false;
    const appended = store.appendEvent('a', { type: 'memory', data: {}, at: 2 }).then(() => {
      synced = calls.some((c) => c.kind === 'datasync' && c.file === path.join(dir, 'data', 'events', 'a.jsonl'));
    });
    await appended;
    expect(synced).toBe(true);
  });

  it.runIf(process.platform === 'linux')('an executing intent is synced by its first transition; a held one at once', async () => {
    await store.createIntent(intentRecord('in_0', 1, { account_id: 'a' }));
    const file = path.join(dir, 'data', 'intents', 'a.jsonl');
    const calls = await syncSpy();
    const synced = () => calls.filter((c) => c.kind === 'datasync' && c.file === file).length;
    await store.createIntent(intentRecord('in_1', 2, { account_id: 'a' }));
    expect(readFileSync(file, 'utf8')).toContain('"in_1"');
    expect(synced()).toBe(0);
    await store.transitionIntent('a', 'in_1', ['executing'], 'signed', {});
    expect(synced()).toBe(1);
    await store.createIntent(intentRecord('in_2', 3, { account_id: 'a', state: 'held', confirm_id: 'cf_2' }));
    expect(synced()).toBe(2);
  });

  it.runIf(process.platform === 'linux')('concurrent appends and document updates share their syncs (group commit)', async () => {
    await store.appendEvent('a', { type: 'memory', data: {}, at: 0 });
    await addPreference(store, 'topic:first');
    const calls = await syncSpy();
    const events = await Promise.all(Array.from({ length: 50 }, (_, i) => store.appendEvent('a', { type: 'memory', data: { i }, at: i })));
    await Promise.all(Array.from({ length: 20 }, (_, i) => addPreference(store, `topic:t${i}`)));

    expect(events.map((e) => e.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    const lines = readFileSync(path.join(dir, 'data', 'events', 'a.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    expect(await preferences(store)).toEqual(['topic:first', ...Array.from({ length: 20 }, (_, i) => `topic:t${i}`)]);
    const appendSyncs = calls.filter((c) => c.kind === 'datasync').length;
    const documentWrites = calls.filter((c) => c.file.endsWith('a.json.tmp')).length;
    expect(appendSyncs).toBeGreaterThanOrEqual(1);
    expect(appendSyncs).toBeLessThanOrEqual(3);
    expect(documentWrites).toBeGreaterThanOrEqual(1);
    expect(documentWrites).toBeLessThanOrEqual(3);
  });

  it('a pin on a memory of 490 entries writes one line and rewrites nothing', async () => {
    for (let i = 0; i < 490; i += 70)
      await store.changeMemory('a', [], () => ({ put: Array.from({ length: 70 }, (_, j) => entry(`topic:m${i + j}`)), result: undefined }));
    const file = path.join(dir, 'data', 'memory', 'a.jsonl');
    const before = readFileSync(file, 'utf8');
    const rewrites: string[] = [];
    hooks.beforeWrite = async (f) => {
      rewrites.push(f);
    };
    await addMemory(store, 'topic:new');
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(
      after
        .slice(before.length)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).key),
    ).toEqual(['topic:new']);
    expect(rewrites).toEqual([]);
    expect((await store.peekMemory('a', [])).count).toBe(491);
  });

  it('a memory document from before rows is read as rows, once', async () => {
    await store.close();
    const legacy = path.join(dir, 'data', 'memory', 'old.json');
    writeFileSync(legacy, JSON.stringify({ entries: [entry('topic:kept'), entry('pair:WETH-USDC')] }));
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect((await store.readMemory('old')).map((e) => e.key).sort()).toEqual(['pair:WETH-USDC', 'topic:kept']);
    expect(existsSync(legacy)).toBe(false);
    await addMemory(store, 'topic:x');
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect((await store.peekMemory('old', [])).count).toBe(2);
    expect((await store.readMemory('a')).map((e) => e.key)).toEqual(['topic:x']);
  });

  it('close() closes every file the store opened (each family that keeps a log per account)', async () => {
    await store.close();
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    store = await createLowdbStore({ dataDir: dir, keystore });
    await addMemory(store, 'topic:x');
    await store.appendEvent('a', { type: 'memory', data: {}, at: 1 });
    await store.appendThread('a', { kind: 'presence', at: 1, text: 'hi', cause: 'test' });
    await store.close();
    expect(openFiles()).toBe(before);
    store = await createLowdbStore({ dataDir: dir, keystore });
  });

  it('holds at most MAX_OPEN_ACCOUNT_LOGS files open however many accounts it has written to, and loses no line', async () => {
    const inData = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(path.join(dir, 'data'));
        } catch {
          return false; // the directory's own descriptor, closed as it was listed
        }
      }).length;
    const accounts = Array.from({ length: 100 }, (_, i) => `busy${i}`);
    for (const id of accounts) {
      await store.appendEvent(id, { type: 'memory', data: {}, at: 1 });
      await store.appendThread(id, { kind: 'presence', at: 1, text: 'hi', cause: 'test' });
    }
    // two logs each for 100 accounts: 200 without the budget
    expect(inData()).toBeLessThanOrEqual(MAX_OPEN_ACCOUNT_LOGS + 4);
    for (const id of accounts) await store.appendEvent(id, { type: 'memory', data: {}, at: 2 });
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore });
    for (const id of accounts) expect((await store.eventsAfter(id, 0, 10)).map((e) => e.at)).toEqual([1, 2]);
  });

  it('a data directory from before the lookup index finds its keys and link codes, indexed once', async () => {
    const key = {
      id: 'key_old',
      account_id: 'a',
      kind: 'live' as const,
      name: 'old',
      scopes: ['talk' as const],
      secrets: [{ hash: 'h-old', last4: 'abcd', valid_until: null }],
      state: 'active' as const,
      created_at: new Date(0).toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    await store.insertKey(key);
    await store.putLink({ hash: 'l-old', account_id: 'a', scopes: ['talk'], created_at: 0, expires_at: 10_000, redeemed_at: null }, 0);
    await store.close();
    rmSync(path.join(dir, 'data', 'lookups.jsonl'));
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect((await store.findKeyBySecretHash('h-old'))?.id).toBe('key_old');
    expect((await store.getKey('key_old'))?.name).toBe('old');
    expect((await store.redeemLink('l-old', 1))?.account_id).toBe('a');
    await store.close();
    expect(readFileSync(path.join(dir, 'data', 'lookups.jsonl'), 'utf8')).toContain('h-old');
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect((await store.findKeyBySecretHash('h-old'))?.id).toBe('key_old');
  });
  it('readers see a document only once its write succeeded', async () => {
    await addPreference(store, 'topic:committed');
    const started = deferred();
    const gate = deferred();
    hooks.beforeWrite = async (file) => {
      if (!file.endsWith(path.join('accounts', 'a.json'))) return;
      started.resolve();
      await gate.promise;
    };
    const writing = addPreference(store, 'topic:pending');
    await started.promise;
    expect(await preferences(store)).toEqual(['topic:committed']);
    gate.resolve();
    await writing;
    expect(await preferences(store)).toEqual(['topic:committed', 'topic:pending']);
  });

  it('a failed write publishes nothing, fails the writes built on it, and the next write starts from what is committed', async () => {
    await addPreference(store, 'topic:committed');
    const started = deferred();
    const gate = deferred();
    hooks.beforeWrite = async (file) => {
      if (!file.endsWith(path.join('accounts', 'a.json'))) return;
      hooks.beforeWrite = null;
      started.resolve();
      await gate.promise;
    };
    const failing = addPreference(store, 'topic:lost');
    await started.promise;
    // Computed from the failing version while its write is under way: must fail with it.
    const dependent = addPreference(store, 'topic:dependent');
    gate.reject(new Error('disk full'));
    await expect(failing).rejects.toThrow('disk full');
    await expect(dependent).rejects.toThrow('disk full');
    expect(await preferences(store)).toEqual(['topic:committed']);

    await addPreference(store, 'topic:next');
    expect(await preferences(store)).toEqual(['topic:committed', 'topic:next']);
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect(await preferences(store)).toEqual(['topic:committed', 'topic:next']);
  });

  it('pruning idempotency answers never loses one put while it runs', async () => {
    await store.createAccount(account('a'));
    await store.putIdempotencyRecord('a', answer('old', 1));
    // Put and prune race: the prune must keep the fresh record, in memory and on disk.
    const put = store.putIdempotencyRecord('a', answer('fresh', 100));
    const pruned = store.pruneIdempotency(50);
    await Promise.all([put, pruned]);
    expect(await pruned).toBe(1);
    expect(await store.getIdempotencyRecord('a', 'fresh')).not.toBeNull();
    expect(await store.getIdempotencyRecord('a', 'old')).toBeNull();
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect((await store.getIdempotencyRecord('a', 'fresh'))?.created_at).toBe(100);
    expect(await store.getIdempotencyRecord('a', 'old')).toBeNull();
  });

  it('pruning events never loses one appended while it runs', async () => {
    for (let i = 0; i < 5; i++) await store.appendEvent('a', { type: 'memory', data: {}, at: 0 });
    const appended = store.appendEvent('a', { type: 'memory', data: {}, at: 100 });
    const pruned = store.pruneEvents('a', 2, 50);
    await Promise.all([appended, pruned]);
    expect((await store.eventsAfter('a', 0, 10)).map((e) => e.id)).toEqual([6]);
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect((await store.eventsAfter('a', 0, 10)).map((e) => e.id)).toEqual([6]);
  });

  it('seals idempotency answers at rest and opens them on a hit', async () => {
    const secret = 'prs_live_0123456789abcdef0123456789abcdef01234567';
    await store.putIdempotencyRecord('a', answer('k1', 1, JSON.stringify({ secret })));
    const file = path.join(dir, 'data', 'idempotency', 'a.jsonl');
    expect(readFileSync(file, 'utf8')).not.toContain('prs_live_');
    expect((await store.getIdempotencyRecord('a', 'k1'))?.body).toBe(JSON.stringify({ secret }));

    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore });
    expect((await store.getIdempotencyRecord('a', 'k1'))?.body).toBe(JSON.stringify({ secret }));
    // Under another master key the answer does not open.
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore: createKeystore(randomBytes(32)) });
    await expect(store.getIdempotencyRecord('a', 'k1')).rejects.toThrow();
  });

  it('seals answers an earlier version stored in the clear, and refuses to store answers without a keystore', async () => {
    const file = path.join(dir, 'data', 'idempotency', 'b.jsonl');
    writeFileSync(file, `${JSON.stringify(answer('legacy', 1, '{"code":"LINK-SECRET"}'))}\n`);
    expect((await store.getIdempotencyRecord('b', 'legacy'))?.body).toBe('{"code":"LINK-SECRET"}');
    expect(readFileSync(file, 'utf8')).not.toContain('LINK-SECRET');

    const bare = await createLowdbStore({ dataDir: dir });
    await expect(bare.putIdempotencyRecord('c', answer('k', 1))).rejects.toThrow(/keystore/);
    await bare.close();
  });
});
