// The account view cache on its own: served from memory until dropped, a second old, or a
// resync; a read overtaken by a change is answered but not kept; the oldest go past the bound.
import { describe, expect, it } from 'vitest';
import type { KeyChangeHandlers } from '../cluster/cluster-port';
import { createAccountViewCache } from './account-view-cache';

function setup(max?: number) {
  let handlers: KeyChangeHandlers | null = null;
  let t = 0;
  const cache = createAccountViewCache<string>({
    changes: {
      subscribe(h) {
        handlers = h;
        return () => {
          handlers = null;
        };
      },
    },
    now: () => t,
    max,
  });
  let loads = 0;
  const load = (v: string) => async () => {
    loads++;
    return v;
  };
  return {
    cache,
    load,
    loads: () => loads,
    advance: (ms: number) => {
      t += ms;
    },
    heard: () => handlers as unknown as KeyChangeHandlers,
  };
}

describe('account view cache', () => {
  it('reads once, then from memory until a change is heard, a resync, or a second passes', async () => {
    const s = setup();
    expect(await s.cache.get('a', s.load('v1'))).toBe('v1');
    expect(await s.cache.get('a', s.load('v2'))).toBe('v1');
    expect(s.loads()).toBe(1);
    s.heard().changed('a');
    expect(await s.cache.get('a', s.load('v2'))).toBe('v2');
    s.heard().resync();
    expect(await s.cache.get('a', s.load('v3'))).toBe('v3');
    s.advance(999);
    expect(await s.cache.get('a', s.load('v4'))).toBe('v3');
    s.advance(1);
    expect(await s.cache.get('a', s.load('v4'))).toBe('v4');
    expect(s.loads()).toBe(4);
    s.cache.close();
    expect(s.heard()).toBeNull();
  });

  it('a read a change overtook is answered but not kept', async () => {
    const s = setup();
    let release: () => void = () => undefined;
    const slow = s.cache.get('a', () => new Promise<string>((r) => (release = () => r('old'))));
    s.cache.drop('a'); // the change commits while the read is under way
    release();
    expect(await slow).toBe('old');
    expect(await s.cache.get('a', s.load('new'))).toBe('new');
  });

  it('reads of one account while its load is under way share that load, unless a change came since it began', async () => {
    const s = setup();
    let release: (v: string) => void = () => undefined;
    let slowLoads = 0;
    const slowLoad = () => {
      slowLoads++;
      return new Promise<string>((r) => (release = r));
    };
    const first = s.cache.get('a', slowLoad);
    const second = s.cache.get('a', slowLoad);
    expect(slowLoads).toBe(1);
    release('v1');
    expect([await first, await second]).toEqual(['v1', 'v1']);
    // A change while a load is under way: a later read does not join the stale load.
    s.advance(1_001);
    const before = s.cache.get('a', slowLoad);
    const releaseBefore = release;
    s.cache.drop('a');
    const after = s.cache.get('a', slowLoad);
    expect(slowLoads).toBe(3);
    release('v2');
    releaseBefore('v1-stale');
    expect([await before, await after]).toEqual(['v1-stale', 'v2']);
  });

  it('keeps at most `max` accounts, dropping the least recently stored', async () => {
    const s = setup(2);
    await s.cache.get('a', s.load('a'));
    await s.cache.get('b', s.load('b'));
    await s.cache.get('c', s.load('c'));
    expect(await s.cache.get('b', s.load('b2'))).toBe('b');
    expect(await s.cache.get('a', s.load('a2'))).toBe('a2');
  });
});
