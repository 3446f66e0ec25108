import { describe, expect, it } from 'vitest';
import { createRecentCache } from './recent-cache';

describe('recent cache', () => {
  it('trusts an entry until it is maxAgeMs old, and evicts the least recently stored first', () => {
    let t = 0;
    const forgotten: string[] = [];
    const c = createRecentCache<string, number>({ now: () => t, max: 2, maxAgeMs: 10, onForget: (k) => forgotten.push(k) });
    expect(c.keep('a', 1, c.mark())).toBe(true);
    c.keep('b', 2, c.mark());
    expect(c.fresh('a')).toBe(1);
    c.keep('c', 3, c.mark()); // 'a' read above, still the oldest stored
    expect(c.fresh('a')).toBeUndefined();
    expect(forgotten).toEqual(['a']);
    t = 10;
    expect(c.fresh('b')).toBeUndefined();
    expect(c.size).toBe(2);
  });

  it('keeps nothing read across a change or a clear', () => {
    const c = createRecentCache<string, string>({ now: () => 0, max: 10, maxAgeMs: 1_000 });
    const before = c.mark();
    c.changed(['other']);
    expect(c.keep('a', 'stale', before)).toBe(false);
    expect(c.fresh('a')).toBeUndefined();
    c.keep('a', 'x', c.mark());
    const mid = c.mark();
    c.clear();
    expect(c.fresh('a')).toBeUndefined();
    expect(c.keep('a', 'y', mid)).toBe(false);
  });
});
