import { describe, expect, it } from 'vitest';
import { expectProblem, useRouteApp } from '../../test/route-fixture';
import { bearer } from '../../test/test-app';
import { nestedDeeperThan } from './json-body';

const f = useRouteApp();

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

// Found probing by hand: invalid UTF-8 was decoded to U+FFFD and the turn answered 200.
describe('a JSON body', () => {
  const send = (payload: Buffer) =>
    f.t.app.inject({
      method: 'POST',
      url: '/v1/memory/pin',
      headers: { ...bearer(f.t.live), 'content-type': 'application/json' },
      payload,
    });
  it('is refused 400 when its bytes are not UTF-8', async () => {
    const bad = Buffer.concat([Buffer.from('{"key":"pair:WETH-USDC","note":"'), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from('"}')]);
    const res = await send(bad);
    expectProblem(res, 400, 'invalid_request');
    expect(res.json().detail).toMatch(/UTF-8/);
  });
  it('reads UTF-8 text as sent', async () => {
    const res = await send(Buffer.from(JSON.stringify({ key: 'pair:WETH-USDC', note: 'café ☕' })));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().note).toBe('café ☕');
  });
});
