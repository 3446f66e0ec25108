// Clients and linked keys for the component tests, against the real server from global-server.ts.
import { createPresenceClient, type PresenceClient } from '@presence/client';
import { inject } from 'vitest';
import type { FakeChrome } from './fake-chrome';
import type { AccountName } from './global-server';

export const serverUrl = () => inject('serverUrl');

export function adminClient(account: AccountName): PresenceClient {
  return createPresenceClient({ baseUrl: serverUrl(), token: inject('adminKeys')[account] });
}

/** The scopes a redeemed link code gives (the server's default for POST /v1/links). */
export const LINK_SCOPES = ['talk', 'memory:read', 'memory:write', 'wallet:read', 'wallet:act'] as const;

/**
 * A key like the one the options page gets by redeeming a link code (same name and scopes),
 * made with the admin key: redeeming is limited to 10 attempts a minute per address, which
 * only the options tests spend.
 */
export async function extensionKey(account: AccountName): Promise<{ key: string; key_id: string }> {
  const k = await adminClient(account).keys.create({ name: 'extension:browser', scopes: [...LINK_SCOPES] });
  return { key: k.secret, key_id: k.id };
}

export const linkedKey = async (account: AccountName) => (await extensionKey(account)).key;

export function extensionClient(key: string): PresenceClient {
  return createPresenceClient({ baseUrl: serverUrl(), token: key });
}

/** Puts a linked state into the fake chrome.storage.local, as the options page would. */
export function storeLink(fake: FakeChrome, key: string, extra: Record<string, unknown> = {}) {
  fake.state.store.set('settings', {
    serverUrl: serverUrl(),
    key,
    presenceName: 'Presence',
    linkedAt: Date.now(),
    installId: 'test-install',
    notifyConfirm: true,
    notifyMessages: true,
    ...extra,
  });
}

export const fakeChrome = () => (globalThis as unknown as { chrome: FakeChrome }).chrome;
