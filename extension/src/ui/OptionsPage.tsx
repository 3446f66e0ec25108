// Options: where the server is and which key to use (the link itself, Save and Unlink:
// useLinking), which events notify, and "Make a link code" (POST /v1/links), which lets a key
// with admin link a bot or another browser from here, as DESIGN.md's Surfaces section says
// the options page does.
import { createPresenceClient, DEFAULT_BASE_URL, type LinkCode, PresenceApiError } from '@presence/client';
import { useId, useState } from 'react';
import { describeError } from '../lib/describe-error';
import { isLinked, type LinkedSettings, type Settings } from '../lib/settings';
import { Card } from './Card';
import { CopyButton } from './CopyButton';
import { Field } from './Field';
import { Switch } from './Switch';
import { Loading } from './states';
import { type Linking, type NotifyPatch, type Status, useLinking } from './useLinking';

export function OptionsPage() {
  const linking = useLinking();
  const { settings } = linking;
  if (!settings) return <Loading label="Loading settings…" />;
  const linked = isLinked(settings);

  return (
    <main className="options">
      <h1>Presence</h1>
      <p className="muted">Link this browser to your presence. Everything stays in this browser profile (chrome.storage.local).</p>
      <LinkForm linking={linking} settings={settings} />

      {/* Keyed by the link: a code made with one key does not stay on screen after relinking. */}
      <MakeLinkCode key={settings.linkedAt ?? 'unlinked'} settings={linked ? settings : null} />

      <Notifications settings={settings} toggle={(patch) => void linking.toggle(patch)} />
    </main>
  );
}

/** The server address and the link code or key, Save and (once linked) Unlink, and what they last did. */
function LinkForm({ linking, settings }: { linking: Linking; settings: Settings }) {
  const { url, setUrl, credential, setCredential, status, save, unlink } = linking;
  const linked = isLinked(settings);
  return (
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
