import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from './json-body';

describe('nestedDeeperThan', () => {
  it('counts arrays and objects opened inside each other', () => {
    expect(nestedDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(nestedDeeperThan('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(nestedDeeperThan('{"a":{"b":[{}]}}', 3)).toBe(true);
  });
  it('a wide body is as deep as its deepest branch', () => {
    expect(nestedDeeperThan(`[${'[1],'.repeat(10_000)}[1]]`, 2)).toBe(false);
  });
  it('brackets inside strings, escaped quotes included, are text', () => {
    expect(nestedDeeperThan(JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[' }), 1)).toBe(false);
    expect(nestedDeeperThan(JSON.stringify(['"', ['"', ['x']]]), 2)).toBe(true);
  });
});
