// Linking: the options page takes a server address and either a one-time link code (made
// with `presence link` or POST /v1/links) or a key. A code is redeemed for this install's
// own key; either way the key is checked with GET /v1/presence/me before it is kept.
// Redeeming also answers the account's newest event id, where the worker's first events
// stream should start (a key typed in has none: the worker then replays from 0).
import { createPresenceClient, type PresenceView } from '@presence/client';

/** A link code is 20 characters from A-Z and 2-9 (no 0, 1, O or I). */
const CODE = /^[A-HJ-NP-Z2-9]{20}$/;
const KEY = /^prs_(live|test)_[0-9A-Za-z]{32,}$/;

export type Credential = { kind: 'code'; code: string } | { kind: 'key'; key: string };

/** Accepts a code typed loosely (lower case, spaces or dashes) or a key; anything else is an error. */
export function parseCredential(input: string): Credential {
  const text = input.trim();
  if (text.startsWith('prs_')) {
    if (KEY.test(text)) return { kind: 'key', key: text };
    throw new LinkInputError(
      'That looks like a key but is not complete: a key is prs_live_… or prs_test_… followed by 32 or more letters and digits.',
    );
  }
  const code = text.replace(/[\s-]/g, '').toUpperCase();
  if (CODE.test(code)) return { kind: 'code', code };
  throw new LinkInputError('Enter a link code (20 letters and digits, e.g. from `presence link`) or a key (prs_live_… or prs_test_…).');
}

/** An input the user can fix before anything is sent. */
export class LinkInputError extends Error {
  override readonly name = 'LinkInputError';
}

/** `http://127.0.0.1:8787/` or `…/v1` → `http://127.0.0.1:8787`; only http(s) with a host, no path, query or credentials. */
export function normaliseServerUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new LinkInputError('The server address must be a full address such as http://127.0.0.1:8787.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new LinkInputError('The server address must start with http:// or https://.');
  if (url.username || url.password) throw new LinkInputError('The server address must not contain a user name or password.');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  if (path !== '' || url.search || url.hash)
    throw new LinkInputError('The server address is only scheme, host and port, e.g. https://presence.example.com.');
  return url.origin;
}

/** The host-permission pattern for exactly that origin (scheme, host and port): what the options page asks for. */
export const originPattern = (serverUrl: string): string => `${new URL(serverUrl).origin}/*`;

export type LinkResult = {
  key: string;
  presence: PresenceView;
  redeemed: boolean;
  /** From the redeem answer: the account's newest event id then; null when a key was given. */
  lastEventId: number | null;
};

export type LinkParameters = {
  serverUrl: string;
  credential: Credential;
  /** Sent as user_id when redeeming; the new key is named extension:<name>. */
  installId: string;
  name?: string;
};

/**
 * Redeems a code (if given one) and checks the key with GET /v1/presence/me. When the code
 * was redeemed but the check then fails, the error carries the new key (`LinkCheckError.key`)
 * so the caller can keep it: the code is spent and cannot be redeemed again.
 */
export async function linkPresence({ serverUrl, credential, installId, name = 'browser' }: LinkParameters): Promise<LinkResult> {
  // One quick retry; a long Retry-After (redeeming is rate-limited per address) is reported, not waited out.
  const options = { baseUrl: serverUrl, retries: { retries: 1, maxRetryAfterMs: 3_000 }, timeoutMs: 15_000 };
  let key: string;
  let redeemed = false;
  let lastEventId: number | null = null;
  if (credential.kind === 'code') {
    const anon = createPresenceClient(options);
    const r = await anon.links.redeem(credential.code, { surface: 'extension', user_id: installId, name });
    key = r.key;
    redeemed = true;
    lastEventId = r.last_event_id;
  } else {
    key = credential.key;
  }
  try {
    const presence = await createPresenceClient({ ...options, token: key }).presence.me();
    return { key, presence, redeemed, lastEventId };
  } catch (e) {
    if (redeemed) throw new LinkCheckError(key, e);
    throw e;
  }
}

export class LinkCheckError extends Error {
  override readonly name = 'LinkCheckError';
  constructor(
    readonly key: string,
    override readonly cause: unknown,
  ) {
    super('the code was redeemed but the new key could not be checked');
  }
}
