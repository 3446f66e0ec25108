// The key cache: found keys are kept and read again only once stale; a change announced by
// any server drops its key, a resync drops all; a lookup overtaken by a change is not kept.
import { describe, expect, it } from 'vitest';
import type { KeyChangeHandlers } from '../cluster/cluster-port';
import type { KeyRecord } from '../store/documents';
import { createKeyCache } from './key-cache';

const key = (id: string, state: KeyRecord['state'] = 'active') =>
  ({
    id,
    account_id: 'a',
    kind: 'live',
    name: id,
    scopes: [],
    secrets: [],
    state,
    created_at: '',
    last_used_at: null,
    revoked_at: null,
  }) as KeyRecord;

function setup(max?: number) {
  let h: KeyChangeHandlers = { changed: () => undefined, resync: () => undefined };
  let t = 0;
  const records = new Map<string, KeyRecord>([['h1', key('k1')]]);
  let loads = 0;
  const cache = createKeyCache({
    changes: {
      subscribe(handlers) {
        h = handlers;
        return () => undefined;
      },
    },
    now: () => t,
    max,
  });
  const find = (hash: string) =>
    cache.find(hash, async () => {
      loads++;
      return records.get(hash) ?? null;
    });
  return { cache, find, records, h: () => h, loads: () => loads, advance: (ms: number) => (t += ms) };
}

describe('key cache', () => {
  it('reads a found key once, then from memory until it is a second old', async () => {
    const c = setup();
    expect((await c.find('h1'))?.id).toBe('k1');
    expect((await c.find('h1'))?.id).toBe('k1');
    expect(c.loads()).toBe(1);
    c.advance(1_000);
    await c.find('h1');
    expect(c.loads()).toBe(2);
    // Misses are never kept: a key made anywhere is found at its first use.
    expect(await c.find('nope')).toBeNull();
    expect(await c.find('nope')).toBeNull();
    expect(c.loads()).toBe(4);
  });

  it('drops a key another server changed, every key on a resync, and one this server changed', async () => {
    const c = setup();
    await c.find('h1');
    c.records.set('h1', key('k1', 'revoked'));
    c.h().changed('k1');
    expect((await c.find('h1'))?.state).toBe('revoked');
    c.records.set('h1', key('k1'));
    c.h().resync();
    expect((await c.find('h1'))?.state).toBe('active');
    c.records.set('h1', key('k1', 'revoked'));
    c.cache.drop('k1');
    expect((await c.find('h1'))?.state).toBe('revoked');
    expect(c.loads()).toBe(4);
  });

  it('does not keep what a lookup read before a change overtook it', async () => {
    const c = setup();
    let release: () => void = () => undefined;
    const slow = c.cache.find('h1', () => new Promise<KeyRecord>((r) => (release = () => r(key('k1')))));
    c.h().changed('k1'); // the revocation commits while the old record is on its way
    release();
    expect((await slow)?.state).toBe('active'); // true when read: its own request uses it
    c.records.set('h1', key('k1', 'revoked'));
    expect((await c.find('h1'))?.state).toBe('revoked');
  });

  it('holds at most `max` keys', async () => {
    const c = setup(2);
    for (const h of ['a', 'b', 'c']) c.records.set(h, key(`k${h}`));
    await c.find('a');
    await c.find('b');
    await c.find('c');
    const before = c.loads();
    await c.find('a'); // the oldest went
    await c.find('c');
    expect(c.loads()).toBe(before + 1);
  });
});
