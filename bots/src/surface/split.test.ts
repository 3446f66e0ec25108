import { describe, expect, it } from 'vitest';
import { splitMessage } from './split';

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

describe('splitMessage', () => {
  it('leaves short text alone, empty text included', () => {
    expect(splitMessage('hello', 10)).toEqual(['hello']);
    expect(splitMessage('', 10)).toEqual(['']);
    expect(splitMessage('x'.repeat(10), 10)).toEqual(['x'.repeat(10)]);
  });

  it('prefers a paragraph break, then a line break, then a space', () => {
    expect(splitMessage('aaaaaa\n\nbbb ccc', 12)).toEqual(['aaaaaa', 'bbb ccc']);
    expect(splitMessage('aaaaaa\nbbb ccc dd', 12)).toEqual(['aaaaaa', 'bbb ccc dd']);
    expect(splitMessage('aa\nbbbbbbbb ccc dd', 14)).toEqual(['aa\nbbbbbbbb', 'ccc dd']);
    expect(splitMessage('aaaa bbbb cccc', 10)).toEqual(['aaaa bbbb', 'cccc']);
  });

  it('cuts hard when there is no break in the second half, and never splits a surrogate pair', () => {
    expect(splitMessage('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(splitMessage('abc😀def', 4)).toEqual(['abc', '😀de', 'f']);
  });

  it('keeps every part within the limit and loses nothing but whitespace at the cuts', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}${i % 17 === 0 ? '\n\n' : i % 5 === 0 ? '\n' : ' '}`).join('');
    for (const limit of [50, 333, 2000, 4096]) {
      const parts = splitMessage(text, limit);
      for (const p of parts) expect(p.length).toBeLessThanOrEqual(limit);
      expect(squash(parts.join(' '))).toBe(squash(text));
    }
  });
});
