// The popup shell: not linked, linked (name, tabs, keyboard), the pending count on the tab,
// and following a relink made in Options while it is open.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { Popup } from '../../src/ui/Popup';
import { adminClient, fakeChrome, linkedKey, storeLink } from '../helpers/presence';

describe('popup', () => {
  it('not linked: says how to link and opens Options', async () => {
    render(<Popup />);
    await screen.findByText('This browser is not linked to a presence yet.');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Open Options' }));
    expect(fakeChrome().state.optionsOpened).toBe(1);
  });

  it('linked: the presence name, three tabs driven by the keyboard, and the pending count on its tab', async () => {
    const held = await adminClient('popup').wallet.intent({ do: 'swap 20 USDC for WETH' });
    storeLink(fakeChrome(), await linkedKey('popup'), { presenceName: 'Ada' });
    render(<Popup />);
    expect((await screen.findByTestId('presence-name')).textContent).toBe('Ada');
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((t) => t.textContent?.replace(/\d+, \d+ waiting$/, ''))).toEqual(['Chat', 'Wallet', 'Pending']);
    expect(screen.getByRole('tab', { selected: true }).textContent).toBe('Chat');
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Pending, 1 waiting' })).toBeTruthy());

    const user = userEvent.setup();
    await user.click(screen.getByTestId('tab-chat'));
    await user.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(screen.getByTestId('tab-wallet'));
    expect(screen.getByRole('tabpanel').id).toBe('panel-wallet'); // the others are hidden
    await screen.findByTestId('wallet-total');
    await user.keyboard('{End}');
    expect(screen.getByRole('tabpanel').id).toBe('panel-pending');
    expect(within(screen.getByRole('tabpanel')).getByTestId('pending-item')).toBeTruthy();
    await user.keyboard('{ArrowRight}'); // wraps round
    expect(screen.getByRole('tab', { selected: true }).textContent).toBe('Chat');

    if (held.status === 'needs_confirm') await adminClient('popup').confirm.deny(held.confirm_id);
  });

  it('follows Options: unlinking elsewhere returns to the link prompt', async () => {
    storeLink(fakeChrome(), await linkedKey('popup'));
    render(<Popup />);
    await screen.findByTestId('presence-name');
    const settings = fakeChrome().state.store.get('settings') as Record<string, unknown>;
    await fakeChrome().storage.local.set({ settings: { ...settings, key: null, linkedAt: null } });
    await screen.findByText('This browser is not linked to a presence yet.');
  });
});
