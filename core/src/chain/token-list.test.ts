// Token/DEX list files: the shipped Base example loads, bad lists fail naming the field.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTokenList, resolveToken, TokenListSchema } from './token-list';

const example = new URL('./lists/base-mainnet.json', import.meta.url).pathname;

describe('token lists', () => {
  it('loads the Base mainnet example', async () => {
    const list = await loadTokenList(example);
    expect(list.chain.id).toBe(8453);
    expect(list.dex.weth).toBe('0x4200000000000000000000000000000000000006');
    expect(resolveToken(list, 'usdc').decimals).toBe(6);
    expect(resolveToken(list, 'ETH').symbol).toBe('WETH');
    expect(resolveToken(list, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913').symbol).toBe('USDC');
    expect(() => resolveToken(list, 'NOPE')).toThrow(expect.objectContaining({ type: 'not_found' }));
    expect(() => resolveToken(list, '0x1234')).toThrow(expect.objectContaining({ type: 'invalid_request' }));
  });

  it('a refusal repeats a typed token short, and never a key or a private key pasted in its place', async () => {
    const list = await loadTokenList(example);
    const detail = (typed: string) => {
      try {
        resolveToken(list, typed);
      } catch (e) {
        return (e as { detail: string }).detail;
      }
    };
    expect(detail('NOPE')).toBe('unknown token NOPE');
    const key = `prs_live_${'Ab3'.repeat(14)}`;
    expect(detail(key)).toBe('unknown token prs_live…');
    const privateKey = `0x${'4f'.repeat(32)}`;
    expect(detail(privateKey)).toBe('not an address: 0x4f4f4f…');
    for (const d of [detail(key), detail(privateKey)]) expect(d?.length).toBeLessThan(40);
  });

  it('rejects duplicates, reserved symbols and a missing WETH entry', async () => {
    const good = JSON.parse(JSON.stringify(await loadTokenList(example)));
    const dup = { ...good, tokens: [...good.tokens, { ...good.tokens[1], address: '0x0000000000000000000000000000000000000009' }] };
    expect(TokenListSchema.safeParse(dup).success).toBe(false);
    const eth = {
      ...good,
      tokens: [...good.tokens, { symbol: 'ETH', address: '0x0000000000000000000000000000000000000009', decimals: 18 }],
    };
    expect(TokenListSchema.safeParse(eth).success).toBe(false);
    const noWeth = { ...good, tokens: good.tokens.slice(1) };
    const r = TokenListSchema.safeParse(noWeth);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['dex', 'weth']);
  });

  it('names the bad field when loading a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'presence-list-'));
    try {
      const path = join(dir, 'list.json');
      await writeFile(path, JSON.stringify({ chain: { id: 1, name: 'x' }, dex: { kind: 'uniswap-v3' }, tokens: [] }));
      await expect(loadTokenList(path)).rejects.toThrow(/dex\.kind/);
      await writeFile(path, '{not json');
      await expect(loadTokenList(path)).rejects.toThrow(/not valid JSON/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
