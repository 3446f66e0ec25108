// The Chat tab against the real server: the thread from GET /v1/messages, a streamed turn,
// the "allow actions" switch (off by default) and the error state.
import { createPresenceClient } from '@presence/client';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ChatTab } from '../../src/ui/ChatTab';
import { adminClient, extensionClient, fakeChrome, linkedKey } from '../helpers/presence';

const noop = () => undefined;

describe('chat tab', () => {
  it('starts empty, streams a reply into the thread, and the thread matches GET /v1/messages', async () => {
    const key = await linkedKey('chat');
    render(<ChatTab client={extensionClient(key)} onShowPending={noop} />);
    expect(screen.getByRole('status').textContent).toMatch(/Loading the conversation/);
    await screen.findByText('No messages yet');

    const user = userEvent.setup();
    const input = screen.getByTestId('chat-input');
    await user.type(input, 'what do I hold{Enter}'); // Enter sends
    const reply = await screen.findByTestId('chat-reply');
    await waitFor(() => expect(reply.closest('li')?.getAttribute('aria-busy')).toBe('false'), { timeout: 15_000 });
    expect(input).toHaveProperty('value', '');
    expect(document.activeElement).toBe(input);

    const thread = await extensionClient(key).messages.history({ limit: 1 });
    const [asked, answered] = thread.messages;
    expect(asked?.text).toBe('what do I hold');
    expect(reply.textContent).toBe(answered?.text);
    expect(reply.textContent).toMatch(/USDC/);
    // The tool the presence used is shown on the reply.
    expect(within(reply.closest('li') as HTMLElement).getByTestId('chat-tools').textContent).toMatch(/^Used wallet/);
  });

  it('loads the existing thread, newest last', async () => {
    const key = await linkedKey('chat');
    await extensionClient(key).messages.send({ text: 'how deep is WETH-USDC' });
    render(<ChatTab client={extensionClient(key)} onShowPending={noop} />);
    await waitFor(() => expect(screen.getAllByTestId('chat-reply').length).toBeGreaterThanOrEqual(2));
    const items = within(screen.getByRole('log', { name: 'Conversation' })).getAllByRole('listitem');
    expect(items.at(-2)?.textContent).toMatch(/how deep is WETH-USDC/);
  });

  it('"allow actions" is off by default: a swap is only talked about; switched on, it is held for approval', async () => {
    const key = await linkedKey('chat');
    let showPending = 0;
    render(<ChatTab client={extensionClient(key)} onShowPending={() => showPending++} />);
    await screen.findByTestId('chat-input');
    const toggle = screen.getByRole('switch', { name: 'Allow actions' });
    expect(toggle).toHaveProperty('checked', false);

    const user = userEvent.setup();
    await user.type(screen.getByTestId('chat-input'), 'swap 20 USDC for WETH');
    await user.click(screen.getByTestId('chat-send'));
    await waitFor(() => expect(screen.getByTestId('chat-send').textContent).toBe('Send'), { timeout: 15_000 });
    expect((await adminClient('chat').confirm.list({ status: 'held' })).confirmations).toHaveLength(0);
    expect(screen.queryByRole('button', { name: /review in Pending/ })).toBeNull();

    await user.click(toggle);
    expect(toggle).toHaveProperty('checked', true);
    await user.type(screen.getByTestId('chat-input'), 'swap 20 USDC for WETH');
    await user.click(screen.getByTestId('chat-send'));
    const review = await screen.findByRole('button', { name: /review in Pending/ }, { timeout: 15_000 });
    const held = (await adminClient('chat').confirm.list({ status: 'held' })).confirmations;
    expect(held).toHaveLength(1);
    await user.click(review);
    expect(showPending).toBe(1);
    await adminClient('chat').confirm.deny(held[0]!.confirm_id);
  });

  it('shows what the presence says unprompted, as forwarded by the background worker', async () => {
    const key = await linkedKey('chat');
    render(<ChatTab client={extensionClient(key)} onShowPending={noop} />);
    await screen.findByTestId('chat-input');
    fakeChrome().deliver({
      type: 'presence:event',
      event: { id: 77, type: 'message', data: { text: 'WETH is below 2500 USD', cause: 'standing:st_x', at: new Date().toISOString() } },
    });
    const said = await screen.findByText('WETH is below 2500 USD');
    expect(within(said.closest('li') as HTMLElement).getByText('unprompted')).toBeTruthy();
  });

  it('shows a clear error, with a retry, when the server cannot be reached', async () => {
    render(
      <ChatTab client={createPresenceClient({ baseUrl: 'http://127.0.0.1:9', token: 'prs_live_x', retries: 0 })} onShowPending={noop} />,
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/Could not reach the server/);
  });
});
