// The Wallet tab against the real server and its devnet: every figure is the API's.
import { createPresenceClient, readableAmounts } from '@presence/client';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { formatAmount } from '../../src/lib/format';
import { WalletTab } from '../../src/ui/WalletTab';
import { extensionClient, fakeChrome, linkedKey } from '../helpers/presence';

describe('wallet tab', () => {
  it('shows address, balances with USD, total, spend label, caps and the block, as GET /v1/wallet answers', async () => {
    const key = await linkedKey('wallet');
    render(<WalletTab client={extensionClient(key)} />);
    expect(screen.getByRole('status').textContent).toMatch(/Reading the wallet/);
    const total = await screen.findByTestId('wallet-total');
    const w = await extensionClient(key).wallet.get();

    expect(screen.getByTestId('wallet-address').textContent).toBe(w.address);
    expect(total.textContent).toBe(formatAmount(w.total_usd));
    expect(total.textContent).toMatch(/^[\d,]+\.\d{2} USD$/);
    expect(screen.getByTestId('wallet-block').textContent).toMatch(/^as of block \d+/);

    const rows = screen.getAllByTestId('wallet-balance');
    expect(rows.map((r) => within(r).getByRole('rowheader').textContent)).toEqual(w.balances.map((b) => b.symbol));
    const usdc = rows.find((r) => within(r).getByRole('rowheader').textContent === 'USDC')!;
    const usdcApi = w.balances.find((b) => b.symbol === 'USDC')!;
    expect(usdc.textContent).toContain(formatAmount(usdcApi.amount.replace(/ USDC$/, '')));
    expect(usdc.textContent).toContain(formatAmount(usdcApi.value_usd!));
    // Every amount is rounded for people (six significant digits), with every digit on hover.
    w.balances.forEach((b, i) => {
      const cell = within(rows[i] as HTMLElement).getAllByRole('cell')[0] as HTMLElement;
      expect(cell.textContent).toBe(formatAmount(readableAmounts(b.amount.replace(` ${b.symbol}`, ''))));
      expect(cell.title).toBe(b.amount);
    });

    expect(screen.getByText('Guarded')).toBeTruthy();
    const caps = screen.getByText('Per action').closest('dl') as HTMLElement;
    expect(caps.textContent).toBe(
      `Per action${w.policy.per_tx_cap}Approval over${w.policy.confirm_over}Daily cap${w.policy.daily_cap}Spent today${w.policy.spent_today}Left today${w.policy.left_today}`,
    );
  });

  it('copies the address; refreshes when a transaction lands', async () => {
    const key = await linkedKey('wallet');
    const user = userEvent.setup(); // installs a clipboard the test can read
    render(<WalletTab client={extensionClient(key)} />);
    const address = (await screen.findByTestId('wallet-address')).textContent ?? '';
    await user.click(screen.getByRole('button', { name: 'Copy address' }));
    expect(await navigator.clipboard.readText()).toBe(address);
    expect(screen.getByTestId('wallet-copy').textContent).toBe('Copied');

    const before = screen.getByTestId('wallet-total').textContent;
    await extensionClient(key).wallet.intent({ do: 'swap 5 USDC for WETH' });
    const w = await extensionClient(key).wallet.get();
    fakeChrome().deliver({ type: 'presence:event', event: { id: 5, type: 'tx', data: {} } });
    await waitFor(() => expect(screen.getByTestId('wallet-block').textContent).toBe(`as of block ${w.as_of_block}`));
    expect(screen.getByTestId('wallet-total').textContent).toBe(formatAmount(w.total_usd));
    expect(before).toMatch(/USD$/);
  });

  it('shows a clear error, with a retry, when the server cannot be reached', async () => {
    render(<WalletTab client={createPresenceClient({ baseUrl: 'http://127.0.0.1:9', token: 'prs_live_x', retries: 0 })} />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/Could not reach the server/);
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});
