// The embedded store keeps at most a few idle accounts per record family in memory, whatever
// it has touched since the start (DESIGN.md, "Cost follows work"): an account dropped from
// memory is read from disk again at its next use, gives its log's file back, and a write
// racing the drop is never lost (an account in use, or with a write under way, stays).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { standing } from '../../testing/fixtures';
import { createKeystore } from '../keystore/keystore';
import type { AccountRecord, KeyRecord, MemoryEntry } from './documents';
import { createAccountCache } from './lowdb/account-cache';
import { createLowdbStore, type LowdbStore } from './lowdb/lowdb-store';

// Lets a test hold a file's atomic rewrite (a log's compaction); every other write goes through.
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
const key = (id: string, accountId: string): KeyRecord => ({
  id,
  account_id: accountId,
  kind: 'live',
  name: id,
  scopes: ['talk'],
  secrets: [{ hash: `h-${id}`, last4: 'abcd', valid_until: null }],
  state: 'active',
  created_at: new Date(0).toISOString(),
  last_used_at: null,
  revoked_at: null,
});
const entry = (k: string): MemoryEntry => ({ key: k, tier: 'pinned', pinned_by: 'user', weight: 1, note: '', touches: 1, last_seen: 0 });
const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => {
    resolve = res;
  });
  return { promise, resolve };
};

describe('account cache', () => {
  const cacheOf = (opts: { max: number; idle?: (v: { id: string }) => boolean }) => {
    const opened: string[] = [];
    const released: string[] = [];
    const cache = createAccountCache({
      max: opts.max,
      open: async (id) => {
        opened.push(id);
        return { id };
      },
      idle: opts.idle ?? (() => true),
      release: async (v) => {
        released.push(v.id);
      },
    });
    return { cache, opened, released };
  };

  it('keeps at most max idle accounts, dropping the least recently used, and reads a dropped one again', async () => {
    const { cache, opened, released } = cacheOf({ max: 2 });
    for (const id of ['a', 'b', 'a', 'c', 'd']) {
      await cache.use(id, () => undefined);
      expect(cache.resident()).toBeLessThanOrEqual(2);
    }
    // a was used after b, so b went first; then a.
    expect(released).toEqual(['b', 'a']);
    await cache.use('a', () => undefined);
    expect(opened).toEqual(['a', 'b', 'c', 'd', 'a']);
  });

  it('never drops an account in use, nor one whose own work is under way', async () => {
    const busy = new Set<string>();
    const { cache, released } = cacheOf({ max: 1, idle: (v) => !busy.has(v.id) });
    const held = deferred();
    let first: { id: string } | undefined;
    const holding = cache.use('a', async (v) => {
      first = v;
      await held.promise;
    });
    await cache.use('b', () => busy.add('b'));
    await cache.use('c', () => undefined);
    // a is leased and b is busy: both stay past the cap; c, idle once used, is not kept.
    expect(released).toEqual(['c']);
    expect(cache.resident()).toBe(2);
    await cache.use('a', (v) => expect(v).toBe(first));
    held.resolve();
    await holding;
    busy.delete('b');
    await cache.use('d', () => undefined);
    expect(cache.resident()).toBe(1);
    expect(released.sort()).toEqual(['a', 'b', 'c']);
  });

  it('keeps nothing of a failed read: the next use reads again', async () => {
    let fail = true;
    const cache = createAccountCache({
      max: 4,
      open: async (id) => {
        if (fail) throw new Error('unreadable');
        return { id };
      },
      idle: () => true,
    });
    await expect(cache.use('a', () => undefined)).rejects.toThrow('unreadable');
    expect(cache.resident()).toBe(0);
    fail = false;
    expect(await cache.use('a', (v) => v.id)).toBe('a');
  });
});

describe('lowdb store with a cap on the accounts in memory', () => {
  const keystore = createKeystore(randomBytes(32));
  let dir: string;
  let store: LowdbStore;
  const reopen = async (maxResidentAccounts?: number) => {
    await store.close();
    store = await createLowdbStore({ dataDir: dir, keystore, maxResidentAccounts });
  };
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'store-resident-'));
    store = await createLowdbStore({ dataDir: dir, keystore, maxResidentAccounts: 2 });
  });
  afterEach(async () => {
    hooks.beforeWrite = null;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One write in every family that keeps a document or a log per account. */
  async function touch(id: string) {
    await store.createAccount(account(id));
    await store.insertKey(key(`key_${id}`, id));
    await store.createWallet({
      account_id: id,
      address: `0x${'1'.repeat(40)}`,
      key: { iv: 'aXY=', tag: 'dGFn', data: 'ZA==' },
      created_at: '',
      funded: false,
    });
    await store.putLink({ hash: `l-${id}`, account_id: id, scopes: ['talk'], created_at: 0, expires_at: 10_000, redeemed_at: null }, 0);
    await store.putStanding(standing(id, `st_${id}`));
    await store.changeMemory(id, [], () => ({ put: [entry(`topic:${id}`)], result: undefined }));
    await store.appendEvent(id, { type: 'memory', data: { id }, at: 1 });
    await store.appendThread(id, { kind: 'presence', at: 1, text: id, cause: 'test' });
    await store.putIdempotencyRecord(id, { key: `k-${id}`, fingerprint: 'fp', status: 200, headers: {}, body: id, created_at: 1 });
  }
  const logFilesOpen = () =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return /\/data\/(events|thread|memory|intents|idempotency)\//.test(readlinkSync(`/proc/self/fd/${fd}`));
      } catch {
        return false; // the directory's own descriptor, closed as it was listed
      }
    }).length;

  it('holds at most the cap of idle accounts per family, gives their files back, and reads them whole again', async () => {
    const ids = Array.from({ length: 7 }, (_, i) => `acct${i}`);
    for (const id of ids) {
      await touch(id);
      for (const count of Object.values(store.residentAccounts())) expect(count).toBeLessThanOrEqual(2);
    }
    expect(Object.keys(store.residentAccounts()).sort()).toEqual(
      ['accounts', 'events', 'idempotency', 'intents', 'keys', 'links', 'memory', 'standing', 'thread', 'wallets'].sort(),
    );
    // Five log families, two accounts each at most: 35 files open without the cap.
    await vi.waitFor(() => expect(logFilesOpen()).toBeLessThanOrEqual(10));
    for (const id of ids) {
      expect((await store.getAccount(id))?.name).toBe(id);
      expect((await store.findKeyBySecretHash(`h-key_${id}`))?.account_id).toBe(id);
      expect((await store.getWallet(id))?.account_id).toBe(id);
      expect(await store.countOutstandingLinks(id, 1)).toBe(1);
      expect((await store.listStanding(id)).map((r) => r.id)).toEqual([`st_${id}`]);
      expect((await store.readMemory(id)).map((e) => e.key)).toEqual([`topic:${id}`]);
      expect((await store.eventsAfter(id, 0, 10)).map((e) => e.data)).toEqual([{ id }]);
      expect((await store.readThread(id, { limit: 10 })).map((e) => e.id)).toEqual([1]);
      expect((await store.getIdempotencyRecord(id, `k-${id}`))?.body).toBe(id);
    }
    for (const count of Object.values(store.residentAccounts())) expect(count).toBeLessThanOrEqual(2);
  });

  it('loses no write when many race the drops (three accounts, one kept in memory)', async () => {
    await reopen(1);
    const ids = ['a', 'b', 'c'];
    const n = 25;
    for (const id of ids) await store.createAccount(account(id));
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < n; i++) {
      for (const id of ids) {
        writes.push(
          store.insertKey(key(`key_${id}_${i}`, id)),
          store.putStanding(standing(id, `st_${id}_${i}`)),
          store.updateAccount(id, (a) => ({
            ...a,
            presence: { ...a.presence, preferences: { ...a.presence.preferences, [`p${i}`]: true } },
          })),
          store.changeMemory(id, [], () => ({ put: [entry(`topic:${i}`)], result: undefined })),
          store.appendEvent(id, { type: 'memory', data: { i }, at: i }),
          store.appendThread(id, { kind: 'presence', at: i, text: `${i}`, cause: 'test' }),
        );
      }
      // The next round starts while this one's writes are part-way (between a read and its write).
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(writes);
    const check = async () => {
      for (const id of ids) {
        expect((await store.listKeys(id)).length).toBe(n);
        expect((await store.listStanding(id)).length).toBe(n);
        expect(Object.keys((await store.getAccount(id))?.presence.preferences ?? {}).length).toBe(n);
        expect((await store.readMemory(id)).length).toBe(n);
        // Ids taken once each: no view went on counting from a copy another had moved past.
        expect((await store.eventsAfter(id, 0, 100)).map((e) => e.id)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
        expect((await store.readThread(id, { limit: 100 })).map((e) => e.id)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      }
    };
    await check();
    for (const count of Object.values(store.residentAccounts())) expect(count).toBeLessThanOrEqual(1);
    await reopen();
    await check();
  });

  it('keeps a log whose compaction is under way, so a line written meanwhile is not lost to it', async () => {
    await reopen(1);
    const pin = (id: string, k: string) => store.changeMemory(id, [], () => ({ put: [entry(k)], result: undefined }));
    const started = deferred();
    const gate = deferred();
    hooks.beforeWrite = async (file) => {
      if (!file.endsWith(path.join('memory', 'a.jsonl'))) return;
      hooks.beforeWrite = null;
      started.resolve();
      await gate.promise;
    };
    // One key written again and again: the 67th line is 64 dead lines past twice the live one,
    // which starts a compaction (memory.ts, compactIfDue) that the write does not wait for.
    for (let i = 0; i < 67; i++) await pin('a', 'topic:again');
    await started.promise;
    // Another account in use: a is the least recently used, and its compaction is still held.
    await pin('b', 'topic:b');
    const during = pin('a', 'topic:during');
    // Kept, a's line waits behind the compaction; a copy read again would write it at once.
    await Promise.race([during, new Promise((resolve) => setTimeout(resolve, 200))]);
    gate.resolve();
    await during;
    await reopen();
    expect((await store.readMemory('a')).map((e) => e.key).sort()).toEqual(['topic:again', 'topic:during']);
  });
});
