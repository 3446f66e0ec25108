// The Pending tab against the real server: held actions from POST /v1/wallet/intent, the
// live countdown, Approve (the transaction hash shown and on chain), Deny, expiry, and
// answers given elsewhere.
import { readableSummary } from '@presence/client';
import { createSoftAuthenticator } from '@presence/core/testing';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PendingTab } from '../../src/ui/PendingTab';
import { adminClient, extensionClient, fakeChrome, linkedKey, serverUrl } from '../helpers/presence';

const admin = () => adminClient('pending');

async function hold(text = 'swap 20 USDC for WETH') {
  const r = await admin().wallet.intent({ do: text });
  if (r.status !== 'needs_confirm') throw new Error(`expected a held intent, got ${r.status}`);
  return r;
}

async function clearHeld() {
  const { confirmations } = await admin().confirm.list({ status: 'held' });
  for (const c of confirmations) await admin().confirm.deny(c.confirm_id);
}

afterEach(async () => {
  vi.useRealTimers();
  await clearHeld();
});

describe('pending tab', () => {
  it('shows an empty state, then each held action with amount and a live countdown; Approve shows the transaction', async () => {
    const key = await linkedKey('pending');
    const counts: number[] = [];
    const view = render(<PendingTab client={extensionClient(key)} onCount={(n) => counts.push(n)} />);
    expect(screen.getByRole('status').textContent).toMatch(/Looking for held actions/);
    await screen.findByText('Nothing waiting');

    const held = await hold();
    view.rerender(<PendingTab client={extensionClient(key)} onCount={(n) => counts.push(n)} />);
    // A needs_confirm event forwarded by the background worker makes the tab look again.
    fakeChrome().deliver({ type: 'presence:event', event: { id: 1, type: 'needs_confirm', data: { confirm_id: held.confirm_id } } });
    const item = await screen.findByTestId('pending-item');
    // The summary as people read it: the swap's quote rounded, not its 18 digits; the amount's value beside it.
    expect(held.summary).toMatch(/quoted \d+\.\d{7,} WETH/);
    expect(within(item).getByText(readableSummary(held.summary))).toBeTruthy();
    expect(item.textContent).not.toContain(held.summary);
    expect(within(item).getByText('20 USDC')).toBeTruthy();
    expect(item.textContent).toMatch(/≈ \d[\d,]*\.\d\d USD/);
    const timer = within(item).getByRole('timer');
    const first = timer.textContent;
    expect(first).toMatch(/^(10:00|9:5\d) left$/);
    await waitFor(() => expect(within(item).getByRole('timer').textContent).not.toBe(first), { timeout: 2500 });
    await waitFor(() => expect(counts.at(-1)).toBe(1));

    const user = userEvent.setup();
    await user.click(within(item).getByTestId('approve'));
    const outcome = await within(item).findByTestId('pending-outcome', {}, { timeout: 15_000 });
    const tx = within(outcome).getByTestId('pending-tx').textContent ?? '';
    expect(tx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(outcome.textContent).toMatch(/^Approved and sent in block \d+\./);
    expect(within(item).queryByTestId('approve')).toBeNull();
    await waitFor(() => expect(counts.at(-1)).toBe(0));

    // The server agrees, and the worker was asked to recount the badge.
    const { confirmations } = await admin().confirm.list();
    expect(confirmations.find((c) => c.confirm_id === held.confirm_id)).toMatchObject({ status: 'executed', tx });
    expect(fakeChrome().state.sent).toContainEqual({ type: 'presence:refresh' });
  });

  it('Deny says nothing was sent; keyboard alone can answer', async () => {
    const held = await hold('swap 15 USDC for WETH');
    render(<PendingTab client={extensionClient(await linkedKey('pending'))} />);
    const item = await screen.findByTestId('pending-item');
    const user = userEvent.setup();
    // Tab to Approve, then to Deny, and press Enter.
    await user.tab();
    expect(document.activeElement).toBe(within(item).getByTestId('approve'));
    await user.tab();
    expect(document.activeElement).toBe(within(item).getByTestId('deny'));
    await user.keyboard('{Enter}');
    await waitFor(() => expect(within(item).getByTestId('pending-outcome').textContent).toBe('Denied: nothing was sent.'));
    const { confirmations } = await admin().confirm.list();
    expect(confirmations.find((c) => c.confirm_id === held.confirm_id)?.status).toBe('denied');
  });

  it('retires the buttons when the countdown runs out', async () => {
    await hold('swap 12 USDC for WETH');
    render(<PendingTab client={extensionClient(await linkedKey('pending'))} />);
    const item = await screen.findByTestId('pending-item');
    expect((within(item).getByTestId('approve') as HTMLButtonElement).disabled).toBe(false);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 11 * 60_000);
    await waitFor(() => expect(within(item).getByText('expired')).toBeTruthy(), { timeout: 2500 });
    expect((within(item).getByTestId('approve') as HTMLButtonElement).disabled).toBe(true);
    expect((within(item).getByTestId('deny') as HTMLButtonElement).disabled).toBe(true);
  });

  it('an answer given elsewhere arrives as a confirm event, or as confirm_resolved when pressed late', async () => {
    const a = await hold('swap 11 USDC for WETH');
    const b = await hold('swap 13 USDC for WETH');
    render(<PendingTab client={extensionClient(await linkedKey('pending'))} />);
    await waitFor(() => expect(screen.getAllByTestId('pending-item')).toHaveLength(2));
    const [itemA, itemB] = screen.getAllByTestId('pending-item') as [HTMLElement, HTMLElement];

    await admin().confirm.deny(a.confirm_id);
    fakeChrome().deliver({
      type: 'presence:event',
      event: { id: 9, type: 'confirm', data: { confirm_id: a.confirm_id, status: 'denied' } },
    });
    await waitFor(() => expect(within(itemA).getByTestId('pending-outcome').textContent).toBe('Denied: nothing was sent.'));

    await admin().confirm.deny(b.confirm_id); // no event delivered: the popup finds out when pressing
    const user = userEvent.setup();
    await user.click(within(itemB).getByTestId('approve'));
    await waitFor(() => expect(within(itemB).getByTestId('pending-outcome').textContent).toBe('Already answered elsewhere.'));
  });

  it('shows a clear error, with a retry, when the server cannot be reached', async () => {
    const { createPresenceClient } = await import('@presence/client');
    render(<PendingTab client={createPresenceClient({ baseUrl: 'http://127.0.0.1:9', token: 'prs_live_x', retries: 0 })} />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/Could not reach the server/);
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('a hold over passkey_over: Approve opens its approve page in a tab, with the reason said; Deny still answers here', async () => {
    // A passkey for the account, made by the software authenticator through the enroll page's steps.
    const base = serverUrl();
    const auth = createSoftAuthenticator({ origin: `http://localhost:${new URL(base).port}` });
    const post = async (url: string, body: unknown) =>
      (
        await fetch(`${base}${new URL(url).pathname}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();
    const { url } = await admin().passkeys.enroll();
    await post(url, auth.register(await post(`${url}/options`, {})));
    const { version: _v, updated_at: _u, ...policy } = await admin().wallet.policy.get();
    await admin().wallet.policy.set({ ...policy, passkey_over: '15 USD' });
    try {
      const held = await hold();
      expect(held.approve_url).toMatch(/\/approve\//);
      render(<PendingTab client={extensionClient(await linkedKey('pending'))} />);
      const item = await screen.findByTestId('pending-item');
      expect(within(item).getByTestId('passkey-note').textContent).toMatch(/passkey threshold/);
      const user = userEvent.setup();
      await user.click(within(item).getByRole('button', { name: 'Approve with passkey' }));
      expect(fakeChrome().state.tabsOpened).toEqual([held.approve_url]);
      expect((await admin().confirm.list({ status: 'held' })).confirmations.map((c) => c.confirm_id)).toEqual([held.confirm_id]);
      await user.click(within(item).getByTestId('deny'));
      expect((await within(item).findByTestId('pending-outcome')).textContent).toBe('Denied: nothing was sent.');
    } finally {
      await admin().wallet.policy.set(policy);
    }
  });
});
