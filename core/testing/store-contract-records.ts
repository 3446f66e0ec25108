// The store contract, part one: accounts, keys, memory and events.
import { beforeEach, expect, it } from 'vitest';
import { PresenceError } from '../src/errors/presence-error';
import type { AccountRecord } from '../src/store/documents';
import type { StorePort } from '../src/store/store-port';
import type { StoreHarness } from './fixtures';
import { account, apiKey, fanOut, memo, range, turn } from './fixtures';
import type { ContractContext } from './store-contract';

export function recordsContract(ctx: ContractContext) {
  let h: StoreHarness;
  let store: StorePort;
  beforeEach(() => {
    ({ h, store } = ctx.current());
  });

  ctx.section('accounts', () => {
    it('creates, reads and lists accounts in creation order; a second create of an id is refused (409 conflict)', async () => {
      expect(await store.getAccount('a')).toBeNull();
      for (const id of ['c', 'a', 'b']) await store.createAccount(account(id));
      expect((await store.listAccounts()).map((a) => a.id)).toEqual(['c', 'a', 'b']);
      expect(await store.getAccount('a')).toEqual(account('a'));
      await expect(store.createAccount(account('a', 'again'))).rejects.toMatchObject({ type: 'conflict' });
      expect((await store.getAccount('a'))?.name).toBe('a');
    });

    it('updateAccount stores and answers what the updater returned; an unknown id answers null', async () => {
      await store.createAccount(account('a'));
      // id, name and created_at are the account's identity (lowdb keeps them in its index):
      // what an update changes is what is inside.
      const next = await store.updateAccount('a', (a) => ({ ...a, presence: { ...a.presence, name: 'renamed' } }));
      expect(next?.presence.name).toBe('renamed');
      expect((await store.getAccount('a'))?.presence.name).toBe('renamed');
      expect(await store.updateAccount('nobody', (a) => a)).toBeNull();
    });

    it('an updater’s own error reaches the caller unchanged and nothing is written', async () => {
      await store.createAccount(account('a'));
      const refused = new PresenceError('conflict', 'the updater said no');
      await expect(
        store.updateAccount('a', () => {
          throw refused;
        }),
      ).rejects.toBe(refused);
      expect(await store.getAccount('a')).toEqual(account('a'));
    });

    it('concurrent updates from several servers lose none (read-modify-write under the record’s lock)', async () => {
      await store.createAccount(account('a'));
      await fanOut(await h.peers(4), 10, (s) =>
        s.updateAccount('a', (a) => ({
          ...a,
          presence: { ...a.presence, preferences: { n: (a.presence.preferences.n as number) + 1 } },
        })),
      );
      expect((await store.getAccount('a'))?.presence.preferences.n).toBe(40);
    });

    it('editing a record a read answered does not change what is stored', async () => {
      await store.createAccount(account('a'));
      const read = (await store.getAccount('a')) as AccountRecord;
      try {
        (read as { name: string }).name = 'edited';
      } catch {
        // Frozen snapshots refuse the edit; either way the store must not see it.
      }
      expect((await store.getAccount('a'))?.name).toBe('a');
    });
  });

  ctx.section('keys', () => {
    it('inserts, reads, lists per account in creation order, and finds a key by any of its secret hashes', async () => {
      await store.insertKey(apiKey('k2', 'a', ['h-old', 'h-new']));
      await store.insertKey(apiKey('k1', 'a', ['h-1']));
      await store.insertKey(apiKey('kb', 'b', ['h-b']));
      expect((await store.listKeys('a')).map((k) => k.id)).toEqual(['k2', 'k1']);
      expect((await store.listKeys('b')).map((k) => k.id)).toEqual(['kb']);
      expect(await store.listKeys('nobody')).toEqual([]);
      expect(await store.getKey('k1')).toEqual(apiKey('k1', 'a', ['h-1']));
      expect(await store.getKey('nope')).toBeNull();
      expect((await store.findKeyBySecretHash('h-old'))?.id).toBe('k2');
      expect((await store.findKeyBySecretHash('h-new'))?.id).toBe('k2');
      expect(await store.findKeyBySecretHash('h-unknown')).toBeNull();
    });

    it('updateKey re-indexes the secret hashes: a rotated-away hash stops finding the key', async () => {
      await store.insertKey(apiKey('k', 'a', ['h-1']));
      const rotated = await store.updateKey('k', (k) => ({ ...k, secrets: [{ hash: 'h-2', last4: 'h-2', valid_until: null }] }));
      expect(rotated?.secrets.map((s) => s.hash)).toEqual(['h-2']);
      expect((await store.findKeyBySecretHash('h-2'))?.id).toBe('k');
      expect(await store.findKeyBySecretHash('h-1')).toBeNull();
      expect((await store.getKey('k'))?.secrets.map((s) => s.hash)).toEqual(['h-2']);
      expect(await store.updateKey('nope', (k) => k)).toBeNull();
    });

    it('concurrent revocation and use stamps from several servers both land', async () => {
      await store.insertKey(apiKey('k', 'a', ['h']));
      const [p, q] = await h.peers(2);
      await Promise.all([
        (p as StorePort).updateKey('k', (k) => ({ ...k, state: 'revoked', revoked_at: 'r' })),
        (q as StorePort).updateKey('k', (k) => ({ ...k, last_used_at: 'u' })),
      ]);
      expect(await store.getKey('k')).toMatchObject({ state: 'revoked', revoked_at: 'r', last_used_at: 'u' });
    });
  });

  ctx.section('memory', () => {
    it('an account without memory reads empty; changeMemory sees the named entries and the count, and writes rows', async () => {
      expect(await store.readMemory('a')).toEqual([]);
      const seen = await store.changeMemory('a', ['topic:x'], (c) => ({ put: [memo('topic:x')], result: c }));
      expect(seen).toEqual({ found: new Map(), count: 0 });
      await store.changeMemory('a', ['topic:y'], () => ({ put: [memo('topic:y', 'why')], result: undefined }));
      expect(await store.readMemory('a')).toEqual(expect.arrayContaining([memo('topic:x'), memo('topic:y', 'why')]));
      expect(await store.peekMemory('a', ['topic:y', 'topic:z'])).toEqual({
        found: new Map([['topic:y', memo('topic:y', 'why')]]),
        count: 2,
      });
      // Removing a key that is not stored changes nothing; the count follows what is kept.
      const after = await store.changeMemory('a', ['topic:x', 'topic:q'], (c) => ({ remove: ['topic:x', 'topic:q'], result: c.count }));
      expect(after).toBe(2);
      expect(await store.peekMemory('a', ['topic:x'])).toEqual({ found: new Map(), count: 1 });
      expect(await store.readMemory('b')).toEqual([]);
    });

    it('concurrent pins from several servers are all kept, and counted', async () => {
      await fanOut(await h.peers(4), 8, (s, i) =>
        s.changeMemory('a', [`topic:t${i}`], () => ({ put: [memo(`topic:t${i}`)], result: undefined })),
      );
      expect((await store.readMemory('a')).map((e) => e.key).sort()).toEqual(
        range(32, 0)
          .map((i) => `topic:t${i}`)
          .sort(),
      );
      expect((await store.peekMemory('a', [])).count).toBe(32);
    });

    it('concurrent changes of one entry each see the one before (none is lost)', async () => {
      await fanOut(await h.peers(4), 5, (s) =>
        s.changeMemory('a', ['topic:n'], ({ found }) => {
          const prev = found.get('topic:n');
          return { put: [{ ...memo('topic:n'), touches: (prev?.touches ?? 0) + 1 }], result: undefined };
        }),
      );
      expect((await store.peekMemory('a', ['topic:n'])).found.get('topic:n')?.touches).toBe(20);
    });

    it('text with any character, NUL and astral ones included, comes back as written', async () => {
      const note = 'nul:\u0000 quote:" backslash:\\ newline:\n emoji:🦊 rtl:\u202e';
      await store.changeMemory('a', ['topic:odd'], () => ({ put: [memo('topic:odd', note)], result: undefined }));
      const entry = await store.appendThread('a', turn(note));
      await store.appendEvent('a', { type: 'memory', data: { note }, at: 1 });
      if (ctx.durable) store = await h.reopen();
      expect((await store.readMemory('a'))[0]?.note).toBe(note);
      expect(await store.readThread('a', { limit: 1 })).toEqual([entry]);
      expect((await store.eventsAfter('a', 0, 1))[0]?.data).toEqual({ note });
    });
  });

  ctx.section('events', () => {
    it('ids count 1, 2, 3… per account; eventsAfter pages by id; bounds follow', async () => {
      expect(await store.eventBounds('a')).toEqual({ oldest: null, latest: 0 });
      for (const i of range(5)) expect((await store.appendEvent('a', { type: 'memory', data: { i }, at: i })).id).toBe(i);
      expect((await store.appendEvent('b', { type: 'memory', data: {}, at: 9 })).id).toBe(1);
      expect(await store.eventsAfter('a', 1, 2)).toEqual([
        { id: 2, type: 'memory', data: { i: 2 }, at: 2 },
        { id: 3, type: 'memory', data: { i: 3 }, at: 3 },
      ]);
      expect((await store.eventsAfter('a', 3, 100)).map((e) => e.id)).toEqual([4, 5]);
      expect(await store.eventsAfter('a', 5, 100)).toEqual([]);
      expect(await store.eventBounds('a')).toEqual({ oldest: 1, latest: 5 });
    });

    it('concurrent appends from several servers get strictly increasing ids with no gap or repeat', async () => {
      const appended = await fanOut(await h.peers(4), 25, (s, i) => s.appendEvent('a', { type: 'memory', data: { i }, at: i }));
      expect(appended.map((e) => e.id).sort((x, y) => x - y)).toEqual(range(100));
      const stored = await store.eventsAfter('a', 0, 1000);
      expect(stored.map((e) => e.id)).toEqual(range(100));
      // Each id carries the event that was answered with it.
      for (const e of appended) expect(stored[e.id - 1]).toEqual(e);
      expect(await store.eventBounds('a')).toEqual({ oldest: 1, latest: 100 });
    });

    it('pruneEvents keeps the newest keepLast, and never reuses an id', async () => {
      for (const i of range(10)) await store.appendEvent('a', { type: 'memory', data: {}, at: i });
      expect(await store.pruneEvents('a', 3, 0)).toBe(7);
      expect((await store.eventsAfter('a', 0, 100)).map((e) => e.id)).toEqual([8, 9, 10]);
      expect(await store.eventBounds('a')).toEqual({ oldest: 8, latest: 10 });
      expect((await store.appendEvent('a', { type: 'memory', data: {}, at: 11 })).id).toBe(11);
    });

    it('pruneEvents drops events older than the cut-off, and keeps the newest even when all are stale', async () => {
      for (const i of range(10, 0)) await store.appendEvent('a', { type: 'memory', data: {}, at: i });
      expect(await store.pruneEvents('a', 100, 5)).toBe(5);
      expect((await store.eventsAfter('a', 0, 100)).map((e) => e.at)).toEqual([5, 6, 7, 8, 9]);
      expect(await store.pruneEvents('a', 100, 1e15)).toBe(4);
      expect(await store.eventBounds('a')).toEqual({ oldest: 10, latest: 10 });
      expect(await store.pruneEvents('a', 0, 1e15)).toBe(0);
      expect(await store.pruneEvents('nobody', 0, 1e15)).toBe(0);
      if (ctx.durable) store = await h.reopen();
      expect((await store.appendEvent('a', { type: 'memory', data: {}, at: 11 })).id).toBe(11);
    });

    it('pruning stale events while others append never drops a fresh one appended meanwhile', async () => {
      for (const i of range(20)) await store.appendEvent('a', { type: 'memory', data: { i }, at: 0 });
      const [p] = await h.peers(1);
      const [appended] = await Promise.all([
        Promise.all(range(10).map(() => (p as StorePort).appendEvent('a', { type: 'memory', data: {}, at: 100 }))),
        store.pruneEvents('a', 1000, 50),
      ]);
      const kept = (await store.eventsAfter('a', 0, 100)).map((e) => e.id);
      for (const e of appended) expect(kept).toContain(e.id);
      expect(kept).toEqual(range(kept.length, kept[0]));
    });
  });
}
