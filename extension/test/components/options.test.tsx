// The options page against the real server: link with a code or a key, every error a person
// can hit, the notification switches and unlinking. Only chrome.* is faked.
import { createPresenceClient } from '@presence/client';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Settings } from '../../src/lib/settings';
import { OptionsPage } from '../../src/ui/OptionsPage';
import { adminClient, extensionClient, fakeChrome, linkedKey, serverUrl, storeLink } from '../helpers/presence';

const stored = () => fakeChrome().state.store.get('settings') as Settings | undefined;

async function fillAndSave(url: string, credential: string) {
  const user = userEvent.setup();
  render(<OptionsPage />);
  const urlInput = await screen.findByTestId('options-url');
  await user.clear(urlInput);
  await user.type(urlInput, url);
  await user.type(screen.getByTestId('options-key'), credential);
  await user.click(screen.getByTestId('options-save'));
  return user;
}

const statusText = () => screen.getByTestId('options-status').textContent ?? '';

/** The options account's newest event id: the id-only frame a live stream opens with. */
function newestEventId(): Promise<number> {
  return new Promise((resolve, reject) => {
    const sub = adminClient('options').events.subscribe({
      onCursor: (id) => {
        resolve(id);
        sub.close();
      },
    });
    void (async () => {
      try {
        for await (const _ of sub) break;
      } catch (e) {
        reject(e);
      }
    })();
  });
}

describe('options page', () => {
  it('links with a one-time code: asks for this origin only, redeems, checks /v1/presence/me, stores address and key', async () => {
    await adminClient('options').presence.update({ name: 'Ada' });
    await adminClient('options').memory.pin({ key: 'topic:before-link', note: 'an event before the link' });
    const newest = await newestEventId();
    expect(newest).toBeGreaterThan(0);
    const { code } = await adminClient('options').links.create();
    render(<OptionsPage />);
    expect(await screen.findByTestId('options-url')).toHaveProperty('value', 'http://127.0.0.1:8787'); // the default
    cleanup();
    await fillAndSave(`${serverUrl()}/`, code.toLowerCase());
    await waitFor(() => expect(statusText()).toBe('Linked to Ada.'));

    const chrome = fakeChrome();
    expect(chrome.state.permissionRequests).toEqual([[`${serverUrl()}/*`]]);
    const s = stored();
    expect(s?.serverUrl).toBe(serverUrl());
    expect(s?.presenceName).toBe('Ada');
    expect(s?.key).toMatch(/^prs_live_/);
    expect(s?.linkedAt).toBeGreaterThan(0);
    expect(screen.getByTestId('options-key')).toHaveProperty('value', '');
    // The worker's first stream for this link starts where the redeem said the account's events stood.
    expect(chrome.state.store.get('events')).toEqual({ linkedAt: s?.linkedAt, lastEventId: newest });

    // The stored key is a working key of its own, named after this surface.
    const me = await createPresenceClient({ baseUrl: serverUrl(), token: s!.key! }).presence.me();
    expect(me.name).toBe('Ada');
    const keys = await adminClient('options').keys.list();
    expect(keys.keys.some((k) => k.name === 'extension:browser' && s!.key!.endsWith(k.last4))).toBe(true);

    // A spent code is refused with a clear sentence.
    const user = userEvent.setup();
    await user.type(screen.getByTestId('options-key'), code);
    await user.click(screen.getByTestId('options-save'));
    await waitFor(() => expect(statusText()).toMatch(/unknown, already used or expired/));
    expect(screen.getByRole('alert').textContent).toMatch(/presence link/);
  });

  it('accepts a key, and says so when the server refuses one; a new link revokes the key it replaces', async () => {
    const replaced = await linkedKey('options');
    storeLink(fakeChrome(), replaced);
    const key = await linkedKey('options');
    await fillAndSave(serverUrl(), key);
    await waitFor(() => expect(statusText()).toMatch(/^Linked to /));
    expect(stored()?.key).toBe(key);
    await waitFor(async () => {
      await expect(extensionClient(replaced).presence.me()).rejects.toMatchObject({ type: 'auth' });
    });

    const user = userEvent.setup();
    await user.type(screen.getByTestId('options-key'), `prs_live_${'x'.repeat(40)}`);
    await user.click(screen.getByTestId('options-save'));
    await waitFor(() => expect(statusText()).toBe('The server did not accept this key.'));
    expect(stored()?.key).toBe(key); // a failed attempt keeps the working link
    await extensionClient(key).presence.me();
  });

  it('rejects malformed input before asking for anything', async () => {
    await fillAndSave('ftp://example.com', 'ABCDEFGHJKLMNPQRSTUV');
    await waitFor(() => expect(statusText()).toMatch(/must start with http/));
    const user = userEvent.setup();
    const url = screen.getByTestId('options-url');
    await user.clear(url);
    await user.type(url, serverUrl());
    const key = screen.getByTestId('options-key');
    await user.clear(key);
    await user.type(key, 'hello');
    await user.click(screen.getByTestId('options-save'));
    await waitFor(() => expect(statusText()).toMatch(/Enter a link code \(20 letters and digits/));
    expect(fakeChrome().state.permissionRequests).toEqual([]);
    expect(stored()?.key ?? null).toBeNull();
  });

  it('explains an unreachable server and a refused permission', async () => {
    await fillAndSave('http://127.0.0.1:9', 'ABCDEFGHJKLMNPQRSTUV');
    await waitFor(() => expect(statusText()).toMatch(/Could not reach the server/), { timeout: 20_000 });

    fakeChrome().state.permissionAnswer = 'deny';
    const user = userEvent.setup();
    const url = screen.getByTestId('options-url');
    await user.clear(url);
    await user.type(url, serverUrl());
    await user.click(screen.getByTestId('options-save'));
    await waitFor(() => expect(statusText()).toMatch(/was not granted/));
    expect(stored()?.key ?? null).toBeNull();
  });

  it('notification switches persist; unlink forgets the key and gives back the host permission', async () => {
    const key = await linkedKey('options');
    await fillAndSave(serverUrl(), key);
    await waitFor(() => expect(statusText()).toMatch(/^Linked to /));
    const user = userEvent.setup();
    const confirmSwitch = screen.getByTestId('options-notify-confirm');
    expect(confirmSwitch).toHaveProperty('checked', true);
    await user.click(confirmSwitch);
    await waitFor(() => expect(stored()?.notifyConfirm).toBe(false));
    expect(stored()?.notifyMessages).toBe(true);

    expect(fakeChrome().state.granted.has(`${serverUrl()}/*`)).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Unlink' }));
    await waitFor(() => expect(statusText()).toBe('Unlinked: the key is revoked on the server and forgotten here.'));
    expect(stored()?.key).toBeNull();
    expect(fakeChrome().state.granted.has(`${serverUrl()}/*`)).toBe(false);
    await expect(extensionClient(key).presence.me()).rejects.toMatchObject({ type: 'auth' });
  });

  it('makes a link code with a key that has admin; a key without admin gets a clear refusal', async () => {
    render(<OptionsPage />);
    expect(await screen.findByTestId('options-make-code')).toHaveProperty('disabled', true); // not linked yet
    cleanup();

    const admin = await adminClient('options').keys.create({ name: 'browser-admin', scopes: ['admin', 'talk'] });
    storeLink(fakeChrome(), admin.secret);
    const user = userEvent.setup();
    render(<OptionsPage />);
    await user.click(await screen.findByTestId('options-make-code'));
    const code = (await screen.findByTestId('options-code')).textContent ?? '';
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{20}$/);
    expect(screen.getByTestId('options-code-status').textContent).toMatch(
      /works once, until .*; scopes talk, memory:read, memory:write, wallet:read, wallet:act\.$/,
    );
    // A real code: it redeems once, for a key of the account this browser is linked to.
    const redeemed = await createPresenceClient({ baseUrl: serverUrl() }).links.redeem(code, {
      surface: 'telegram',
      user_id: '42',
      name: 'from-options',
    });
    expect(redeemed).toMatchObject({ account: 'options', name: 'telegram:from-options' });
    cleanup();

    storeLink(fakeChrome(), await linkedKey('options'));
    render(<OptionsPage />);
    await user.click(await screen.findByTestId('options-make-code'));
    const refusal = await screen.findByTestId('options-code-error');
    expect(refusal.textContent).toMatch(/^This browser’s key cannot make link codes: that takes a key with the admin scope/);
    expect(refusal.textContent).toContain('presence link');
    expect(refusal.getAttribute('role')).toBe('alert');
    expect(screen.queryByTestId('options-code')).toBeNull();
  });
});
