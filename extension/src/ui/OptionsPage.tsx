// Options: where the server is and which key to use. A link code is redeemed for this
// install's own key; the key is checked with GET /v1/presence/me before it is stored. Host
// access is asked for the chosen origin only (from the manifest's optional host permissions),
// first thing in the click handler, while the click still counts as a user gesture.
// "Make a link code" (POST /v1/links) lets a key with admin link a bot or another browser
// from here, as DESIGN.md's Surfaces section says the options page does.
import { createPresenceClient, DEFAULT_BASE_URL, type LinkCode, PresenceApiError } from '@presence/client';
import { type FormEvent, useEffect, useId, useState } from 'react';
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
import { isLinked, type LinkedSettings, loadSettings, type Settings, saveCursor, saveSettings } from '../lib/settings';
import { Card } from './Card';
import { CopyButton } from './CopyButton';
import { Field } from './Field';
import { Switch } from './Switch';
import { Loading } from './states';

type Status = { kind: 'idle' } | { kind: 'working'; text: string } | { kind: 'ok'; text: string } | { kind: 'error'; text: string };

export function OptionsPage() {
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

  if (!settings) return <Loading label="Loading settings…" />;
  const linked = isLinked(settings);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!settings || status.kind === 'working') return;
    let serverUrl: string;
    let cred: Credential;
    try {
      serverUrl = normaliseServerUrl(url);
      if (credential.trim() === '') {
        if (!settings.key) throw new LinkInputError('Enter a link code or a key.');
        cred = { kind: 'key', key: settings.key };
      } else {
        cred = parseCredential(credential);
      }
    } catch (err) {
      setStatus({ kind: 'error', text: describeError(err) });
      return;
    }
    const pattern = originPattern(serverUrl);
    setStatus({ kind: 'working', text: `Asking for access to ${serverUrl}…` });
    let granted: boolean;
    try {
      // Resolves at once when already granted; otherwise Chromium shows its prompt.
      granted = await chrome.permissions.request({ origins: [pattern] });
    } catch (err) {
      setStatus({ kind: 'error', text: `Could not ask for access to ${serverUrl}: ${describeError(err)}` });
      return;
    }
    if (!granted) {
      setStatus({ kind: 'error', text: `Access to ${serverUrl} was not granted; the extension cannot talk to the server without it.` });
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

  return (
    <main className="options">
      <h1>Presence</h1>
      <p className="muted">Link this browser to your presence. Everything stays in this browser profile (chrome.storage.local).</p>
      <form onSubmit={save} className="card" noValidate>
        <h2 className="card-title">Server and key</h2>
        <Field
          id="options-url"
          testId="options-url"
          type="url"
          label="Server address"
          value={url}
          onChange={setUrl}
          hint={<>The Presence server, e.g. {DEFAULT_BASE_URL}. The browser asks you to allow access to this address only.</>}
        />
        <Field
          id="options-key"
          testId="options-key"
          label="Link code or key"
          value={credential}
          onChange={setCredential}
          placeholder={linked ? 'Linked — leave empty to keep the current key' : 'e.g. K7QM2-XRPK7-QM2XR-PK7QM'}
          hint={
            <>
              A one-time code from <code>presence link</code> (or POST /v1/links) is exchanged for this browser’s own key. A key (prs_live_…
              or prs_test_…) works too.
            </>
          }
        />
        <div className="actions">
          <button type="submit" data-testid="options-save" disabled={status.kind === 'working'}>
            {status.kind === 'working' ? 'Saving…' : 'Save'}
          </button>
          {linked ? (
            <button type="button" className="secondary" onClick={() => void unlink()}>
              Unlink
            </button>
          ) : null}
        </div>
        <LinkStatus status={status} settings={settings} />
      </form>

      {/* Keyed by the link: a code made with one key does not stay on screen after relinking. */}
      <MakeLinkCode key={settings.linkedAt ?? 'unlinked'} settings={linked ? settings : null} />

      <Notifications settings={settings} toggle={(patch) => void toggle(patch)} />
    </main>
  );
}

/** What Save or Unlink last did, or (idle) which presence this browser is linked to. */
function LinkStatus({ status, settings }: { status: Status; settings: Settings }) {
  return (
    <p
      data-testid="options-status"
      className={`status status-${status.kind}`}
      role={status.kind === 'error' ? 'alert' : 'status'}
      aria-live="polite"
    >
      {status.kind === 'idle'
        ? isLinked(settings)
          ? `Linked to ${settings.presenceName ?? 'a presence'} at ${settings.serverUrl} (key …${settings.key?.slice(-4)}).`
          : 'Not linked yet.'
        : status.text}
    </p>
  );
}

type NotifyPatch = Partial<Pick<Settings, 'notifyConfirm' | 'notifyMessages'>>;

/** Which events the worker shows as browser notifications. */
function Notifications({ settings, toggle }: { settings: Settings; toggle: (patch: NotifyPatch) => void }) {
  return (
    <fieldset className="card">
      <legend className="card-title">Notifications</legend>
      <Switch testId="options-notify-confirm" checked={settings.notifyConfirm} onChange={(on) => toggle({ notifyConfirm: on })}>
        When an action waits for my approval
      </Switch>
      <Switch testId="options-notify-messages" checked={settings.notifyMessages} onChange={(on) => toggle({ notifyMessages: on })}>
        When my presence says something unprompted (alerts, standing intents, resolved actions)
      </Switch>
    </fieldset>
  );
}

type CodeState = { kind: 'idle' } | { kind: 'working' } | { kind: 'ok'; link: LinkCode } | { kind: 'error'; text: string };

/**
 * POST /v1/links with the stored key: a one-time code for a bot (/link CODE) or another
 * browser. Only a key with the admin scope may make one; a key this page got by redeeming a
 * code has not (codes never carry admin), so that refusal says what to do instead.
 */
function MakeLinkCode({ settings }: { settings: LinkedSettings | null }) {
  const [state, setState] = useState<CodeState>({ kind: 'idle' });
  const hint = useId();

  async function make() {
    if (!settings || state.kind === 'working') return;
    setState({ kind: 'working' });
    try {
      const client = createPresenceClient({ baseUrl: settings.serverUrl, token: settings.key, retries: 1, timeoutMs: 15_000 });
      setState({ kind: 'ok', link: await client.links.create() });
    } catch (e) {
      setState({
        kind: 'error',
        text:
          e instanceof PresenceApiError && e.type === 'scope'
            ? 'This browser’s key cannot make link codes: that takes a key with the admin scope (a key from a link code never has it). Run `presence link` with an admin key, or link this browser with an admin key first.'
            : describeError(e),
      });
    }
  }

  return (
    <Card title="Link a chat or another browser">
      <p id={hint} className="muted small">
        A one-time code (8 characters, valid for 10 minutes) for the Telegram or Discord bot (<code>/link CODE</code> in a private chat) or
        another browser’s options page. Making one needs a key with the admin scope.
      </p>
      <div className="actions">
        <button
          type="button"
          data-testid="options-make-code"
          aria-describedby={hint}
          disabled={!settings || state.kind === 'working'}
          onClick={() => void make()}
        >
          {state.kind === 'working' ? 'Making a code…' : 'Make a link code'}
        </button>
      </div>
      {!settings ? (
        <p className="muted small">Link this browser first.</p>
      ) : state.kind === 'ok' ? (
        <p className="status status-ok" role="status" data-testid="options-code-status">
          Code <code data-testid="options-code">{state.link.code}</code>{' '}
          <CopyButton value={state.link.code} label="Copy the link code" testId="options-code-copy" /> — works once, until{' '}
          {new Date(state.link.expires_at).toLocaleTimeString()}; scopes {state.link.scopes.join(', ')}.
        </p>
      ) : state.kind === 'error' ? (
        <p className="status status-error" role="alert" data-testid="options-code-error">
          {state.text}
        </p>
      ) : null}
    </Card>
  );
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
