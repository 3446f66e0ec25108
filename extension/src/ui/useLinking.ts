// The options page's link to a server: the settings as stored, the form's server address and
// credential, and what Save, Unlink and the notification switches do with them. A link code is
// redeemed for this install's own key; the key is checked with GET /v1/presence/me before it
// is stored. Host access is asked for the chosen origin only (from the manifest's optional
// host permissions), first thing in Save's handler, while the click still counts as a user
// gesture.
import { createPresenceClient, DEFAULT_BASE_URL, PresenceApiError } from '@presence/client';
import { type FormEvent, useEffect, useState } from 'react';
import { describeError } from '../lib/describe-error';
import {
  type Credential,
  LinkCheckError,
  LinkInputError,
  linkPresence,
  normaliseServerUrl,
  originPattern,
  parseCredential,
} from '../lib/link';
import { loadSettings, type Settings, saveCursor, saveSettings } from '../lib/settings';

export type Status = { kind: 'idle' } | { kind: 'working'; text: string } | { kind: 'ok'; text: string } | { kind: 'error'; text: string };

export type NotifyPatch = Partial<Pick<Settings, 'notifyConfirm' | 'notifyMessages'>>;

export type Linking = ReturnType<typeof useLinking>;

export function useLinking() {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [url, setUrl] = useState(DEFAULT_BASE_URL);
  const [credential, setCredential] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });

  useEffect(() => {
    void loadSettings().then((s) => {
      setSettings(s);
      setUrl(s.serverUrl);
    });
  }, []);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!settings || status.kind === 'working') return;
    let form: { serverUrl: string; cred: Credential };
    try {
      form = readForm(url, credential, settings.key);
    } catch (err) {
      setStatus({ kind: 'error', text: describeError(err) });
      return;
    }
    const { serverUrl, cred } = form;
    setStatus({ kind: 'working', text: `Asking for access to ${serverUrl}…` });
    const refused = await askForAccess(serverUrl);
    if (refused !== null) {
      setStatus({ kind: 'error', text: refused });
      return;
    }
    setStatus({ kind: 'working', text: cred.kind === 'code' ? 'Redeeming the link code…' : 'Checking the key…' });
    try {
      const r = await linkPresence({ serverUrl, credential: cred, installId: settings.installId });
      const previous = { serverUrl: settings.serverUrl, key: settings.key };
      const linkedAt = Date.now();
      // The cursor goes first, so the worker's first stream for this link (started by the
      // settings change) replays from the redeem and misses nothing in between. Should the old
      // link's stream overwrite it meanwhile, the worker finds no cursor for this link and
      // replays from 0, as for a key: more than needed, nothing lost.
      if (r.lastEventId !== null) await saveCursor({ linkedAt, lastEventId: r.lastEventId });
      const next = await saveSettings({ serverUrl, key: r.key, presenceName: r.presence.name, linkedAt });
      setSettings(next);
      setUrl(serverUrl);
      setCredential('');
      setStatus({
        kind: 'ok',
        text: `Linked to ${r.presence.name}${r.presence.mode === 'test' ? ' with a test key (nothing it does is stored or sent)' : ''}.`,
      });
      // The key this one replaces stops working too (best effort: its server may be gone).
      if (previous.key && previous.key !== r.key) void revokeKey(previous.serverUrl, previous.key);
      if (previous.serverUrl !== serverUrl) void dropOrigin(previous.serverUrl);
    } catch (err) {
      // A redeemed code is spent: keep the new key in the field so Save can check it again.
      if (err instanceof LinkCheckError) setCredential(err.key);
      const context = cred.kind === 'code' && !(err instanceof LinkCheckError) ? 'redeem' : 'link';
      setStatus({ kind: 'error', text: describeError(err, context) });
    }
  }

  async function unlink() {
    if (!settings?.key) return;
    setStatus({ kind: 'working', text: 'Unlinking…' });
    const revoked = await revokeKey(settings.serverUrl, settings.key);
    const last4 = settings.key.slice(-4);
    const next = await saveSettings({ key: null, presenceName: null, linkedAt: null });
    setSettings(next);
    void dropOrigin(next.serverUrl);
    setStatus(
      revoked
        ? { kind: 'ok', text: 'Unlinked: the key is revoked on the server and forgotten here.' }
        : {
            kind: 'ok',
            text: `Unlinked here, but the server could not be reached: revoke the key ending …${last4} with \`presence keys revoke\`.`,
          },
    );
  }

  async function toggle(patch: NotifyPatch) {
    setSettings(await saveSettings(patch));
  }

  return { settings, url, setUrl, credential, setCredential, status, save, unlink, toggle };
}

/** The server address and credential the form holds; an empty credential keeps the stored key. */
function readForm(url: string, credential: string, storedKey: string | null): { serverUrl: string; cred: Credential } {
  const serverUrl = normaliseServerUrl(url);
  if (credential.trim() !== '') return { serverUrl, cred: parseCredential(credential) };
  if (!storedKey) throw new LinkInputError('Enter a link code or a key.');
  return { serverUrl, cred: { kind: 'key', key: storedKey } };
}

/** Asks for host access to the server's origin: null once granted, else what to say. */
async function askForAccess(serverUrl: string): Promise<string | null> {
  const pattern = originPattern(serverUrl);
  let granted: boolean;
  try {
    // Resolves at once when already granted; otherwise Chromium shows its prompt.
    granted = await chrome.permissions.request({ origins: [pattern] });
  } catch (err) {
    return `Could not ask for access to ${serverUrl}: ${describeError(err)}`;
  }
  return granted ? null : `Access to ${serverUrl} was not granted; the extension cannot talk to the server without it.`;
}

/** DELETE /v1/keys/self with the key itself; true when the server no longer accepts it. */
async function revokeKey(serverUrl: string, key: string): Promise<boolean> {
  try {
    await createPresenceClient({ baseUrl: serverUrl, token: key, retries: 0, timeoutMs: 5_000 }).keys.revokeSelf();
    return true;
  } catch (e) {
    return e instanceof PresenceApiError && e.type === 'auth'; // already revoked
  }
}

/** Gives back access to an origin no longer used; harmless if it was never granted. */
async function dropOrigin(serverUrl: string) {
  try {
    await chrome.permissions.remove({ origins: [originPattern(serverUrl)] });
  } catch {
    // a required permission (or none): nothing to give back
  }
}
