// A fingerprint is of the body's JSON value: key order does not count, anything else does.
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprintRequest, sameRequest } from './fingerprint';

const fp = (body: unknown) => fingerprintRequest('POST', '/v1/memory/pin', body);

describe('fingerprintRequest', () => {
  it('is the same for the same body with its keys in another order, at any depth', () => {
    const a = fp({ key: 'k', note: 'n', meta: { x: 1, y: [{ p: 1, q: 2 }] } });
    const b = fp({ meta: { y: [{ q: 2, p: 1 }], x: 1 }, note: 'n', key: 'k' });
    expect(b.value).toBe(a.value);
    expect(a.value).toMatch(/^v2:[0-9a-f]{64}$/);
  });

  it('differs for another value, another array order, another type, path or method', () => {
    const base = fp({ key: 'k', list: [1, 2] });
    expect(fp({ key: 'j', list: [1, 2] }).value).not.toBe(base.value);
    expect(fp({ key: 'k', list: [2, 1] }).value).not.toBe(base.value);
    expect(fp({ key: 'k', list: ['1', 2] }).value).not.toBe(base.value);
    expect(fp({ key: 'k', list: [1, 2], extra: null }).value).not.toBe(base.value);
    expect(fingerprintRequest('POST', '/v1/memory/pin2', { key: 'k', list: [1, 2] }).value).not.toBe(base.value);
    expect(fingerprintRequest('PUT', '/v1/memory/pin', { key: 'k', list: [1, 2] }).value).not.toBe(base.value);
    expect(fp(undefined).value).not.toBe(fp({}).value);
  });

  it('matches the unversioned fingerprint an earlier server stored for the same bytes, and no other', () => {
    const now = fp({ b: 1, a: 2 });
    expect(sameRequest(now.legacy, now)).toBe(true);
    expect(sameRequest(fp({ a: 2, b: 1 }).legacy, now)).toBe(false);
    expect(sameRequest(fp({ b: 1, a: 3 }).value, now)).toBe(false);
  });

  it('sorts keys by code unit, keeping arrays and scalars as they are', () => {
    expect(canonicalJson({ b: [3, { d: 1, c: 'x' }], a: 'é', B: true })).toBe('{"B":true,"a":"é","b":[3,{"c":"x","d":1}]}');
  });
});
