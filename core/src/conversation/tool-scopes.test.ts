import type { Scope } from '@presence/protocol';
import { describe, expect, it } from 'vitest';
import { declaredTools } from '../../testing/tools-fixture';
import { offeredTools, TOOL_SCOPES, toolRefusal } from './tool-scopes';

const NARROWING: Scope[] = ['memory:read', 'memory:write', 'wallet:read', 'wallet:act', 'admin'];

/** Every subset of the scopes that narrow a turn, each with talk (a turn needs talk to exist). */
const subsets = (): Scope[][] =>
  Array.from({ length: 2 ** NARROWING.length }, (_, mask) => ['talk', ...NARROWING.filter((_s, i) => mask & (1 << i))]);

describe('the tool → scope table', () => {
  it('covers exactly the tools a turn declares (a tool missing from it would never be offered)', () => {
    expect(
      declaredTools([...NARROWING], true)
        .map((t) => t.name)
        .sort(),
    ).toEqual(Object.keys(TOOL_SCOPES).sort());
  });

  it('offers, for every subset of scopes with and without allow_act, exactly what those scopes allow', () => {
    for (const scopes of subsets()) {
      for (const allowAct of [false, true]) {
        const has = (s: Scope) => scopes.includes(s);
        const expected = [
          ...(has('wallet:read')
            ? ['chain.tokens', 'chain.pools', 'chain.positions', 'chain.safety', 'wallet.read', 'wallet.actions']
            : []),
          ...(has('memory:read') ? ['memory.list'] : []),
          ...(has('memory:write') ? ['memory.remember', 'memory.forget'] : []),
          'standing.list',
          ...(has('wallet:read') || (has('wallet:act') && allowAct) ? ['standing.create'] : []),
          'standing.cancel',
          ...(has('wallet:act') && allowAct ? ['intent.submit'] : []),
        ];
        const turn = { scopes, allowAct };
        expect(
          offeredTools(declaredTools(scopes, allowAct), turn).map((t) => t.name),
          `${scopes.join(',')} allow_act=${allowAct}`,
        ).toEqual(expected);
      }
    }
  });

  it('names the missing scope in words the presence can say', () => {
    const talk = { scopes: ['talk'] as Scope[], allowAct: false };
    expect(toolRefusal('memory.forget', talk)?.detail).toBe('That needs the memory:write scope, which this key does not have.');
    expect(toolRefusal('memory.forget', talk)?.toProblem()).toMatchObject({ type: 'scope', status: 403, missing: ['memory:write'] });
    expect(toolRefusal('wallet.read', talk)?.detail).toBe('That needs the wallet:read scope, which this key does not have.');
    expect(toolRefusal('intent.submit', talk)?.detail).toBe('That needs the wallet:act scope, which this key does not have.');
    // With wallet:act but a message without allow_act: not a scope problem.
    const actor = { scopes: ['talk', 'wallet:act'] as Scope[], allowAct: false };
    expect(toolRefusal('intent.submit', actor)).toMatchObject({ type: 'invalid_request' });
    expect(toolRefusal('intent.submit', actor)?.detail).toContain('allow_act: true');
    expect(toolRefusal('wallet.withdraw', { scopes: ['talk', ...NARROWING], allowAct: true })).toMatchObject({ type: 'invalid_request' });
  });

  it('a standing intent needs the scopes of what it will do', () => {
    const reader = { scopes: ['talk', 'wallet:read'] as Scope[], allowAct: false };
    const actor = { scopes: ['talk', 'wallet:act'] as Scope[], allowAct: true };
    const alert = { text: 'tell me when WETH is below 2500 USD' };
    const daily = { text: 'every day at 09:00 tell me my balance' };
    const acting = { text: 'if WETH drops below 2000 buy $50 of WETH' };
    expect(toolRefusal('standing.create', reader, alert)).toBeNull();
    expect(toolRefusal('standing.create', reader, daily)).toBeNull();
    expect(toolRefusal('standing.create', reader, acting)?.detail).toBe('That needs the wallet:act scope, which this key does not have.');
    expect(toolRefusal('standing.create', { ...reader, scopes: [...reader.scopes, 'wallet:act'] }, acting)?.type).toBe('invalid_request');
    expect(toolRefusal('standing.create', actor, acting)).toBeNull();
    expect(toolRefusal('standing.create', actor, alert)?.detail).toBe('That needs the wallet:read scope, which this key does not have.');
    // An unreadable sentence is the tool's to explain, once the tool may be used at all.
    expect(toolRefusal('standing.create', reader, { text: 'whenever' })).toBeNull();
  });
});
