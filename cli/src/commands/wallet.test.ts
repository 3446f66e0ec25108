// `presence intent` as people read it: the summary's quote rounded, the amount's USD value beside it.
import { expect, it } from 'vitest';
import { renderPairs, renderTable } from '../table';
import { assetTable, renderIntent } from './wallet';

const cli = { pairs: (p: [string, string][]) => renderPairs(p), command: (args: string) => `presence ${args}` };
const summary = 'swap 22 USDC for at least 0.007238 WETH (quoted 0.007311279878129051 WETH)';

it('a held swap shows its quote rounded and its value', () => {
  const out = renderIntent(cli, {
    status: 'needs_confirm',
    intent_id: 'in_0000000000000001',
    confirm_id: 'cf_0000000000000001',
    summary,
    amount: '22 USDC',
    value_usd: '22.00 USD',
    expires_at: '2026-01-01T00:10:00.000Z',
  });
  expect(out).toMatch(/^held\s+swap 22 USDC for about 0\.00731128 WETH \(at least 0\.007238 WETH\)$/m);
  expect(out).toMatch(/^amount\s+22 USDC \(22\.00 USD\)$/m);
  expect(out).toContain('approve: presence confirm cf_0000000000000001 --approve');
  expect(out).not.toContain('0.007311279878129051');
});

it('a done swap too', () => {
  const out = renderIntent(cli, { status: 'done', intent_id: 'in_1', tx: '0xabc', block: 12, summary, amount: '22 USDC' });
  expect(out).toMatch(/^done\s+swap 22 USDC for about 0\.00731128 WETH \(at least 0\.007238 WETH\)$/m);
  expect(out).toMatch(/^amount\s+22 USDC$/m);
  expect(out).toMatch(/^tx\s+0xabc \(block 12\)$/m);
});

it('the balances table rounds amounts to six significant digits and groups USD figures, as chat does (18 digits were hard to read)', () => {
  const table = { table: (c: Parameters<typeof renderTable>[0], r: string[][]) => renderTable(c, r, 'aligned', { headers: true }) };
  const out = assetTable(table, [
    { symbol: 'ETH', amount: '9.999532128039127077 ETH', value_usd: '29999.12 USD' },
    { symbol: 'USDC', amount: '9959 USDC', value_usd: '9959.00 USD' },
  ]);
  expect(out).toMatch(/^ETH\s+9\.99953 ETH\s+29,999\.12 USD$/m);
  expect(out).toMatch(/^USDC\s+9959 USDC\s+9,959\.00 USD$/m);
  expect(out).not.toContain('9.999532128039127077');
});
