// `presence confirm list` as people read it: a held swap's quote rounded, its USD value shown.
import { expect, it } from 'vitest';
import { renderTable } from '../table';
import { CONFIRM_COLUMNS, confirmationRows } from './confirm';

it("lists a hold with its value and the swap's quote rounded, not its 18 digits", () => {
  const out = renderTable(
    CONFIRM_COLUMNS,
    confirmationRows([
      {
        confirm_id: 'cf_0000000000000001',
        intent_id: 'in_0000000000000001',
        status: 'held',
        summary: 'swap 22 USDC for at least 0.007238 WETH (quoted 0.007311279878129051 WETH)',
        amount: '22 USDC',
        value_usd: '22.00 USD',
        created_at: '2026-01-01T00:00:00.000Z',
        expires_at: '2026-01-01T00:10:00.000Z',
        tx: null,
        block: null,
      },
    ]),
    'aligned',
    { headers: true },
  );
  expect(out).toMatch(/^CONFIRM ID\s+STATUS\s+AMOUNT\s+VALUE\s+EXPIRES \(UTC\)\s+SUMMARY$/m);
  expect(out).toMatch(
    /^cf_0000000000000001\s+held\s+22 USDC\s+22\.00 USD\s+2026-01-01 00:10\s+swap 22 USDC for about 0\.00731128 WETH \(at least 0\.007238 WETH\)$/m,
  );
  expect(out).not.toContain('0.007311279878129051');
});
