// The popup: a header with the presence's name and three tabs (Chat, Wallet, Pending). All
// three panels stay mounted so a streamed reply goes on while another tab is shown.
import { createPresenceClient, type PresenceClient } from '@presence/client';
import { type KeyboardEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { sendRuntimeMessage } from '../lib/runtime-messages';
import { isLinked, loadSettings, onSettingsChanged, type Settings } from '../lib/settings';
import { ChatTab } from './ChatTab';
import { PendingTab } from './PendingTab';
import { Loading } from './states';
import { WalletTab } from './WalletTab';

export const TABS = ['chat', 'wallet', 'pending'] as const;
export type TabName = (typeof TABS)[number];
const TAB_LABEL: Record<TabName, string> = { chat: 'Chat', wallet: 'Wallet', pending: 'Pending' };

const openOptions = () => void chrome.runtime.openOptionsPage();

/** Reads the settings, follows changes made in Options, and builds the client for the linked key. */
export function Popup({ initialTab }: { initialTab?: TabName }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  useEffect(() => {
    void loadSettings().then(setSettings);
    // Opening the popup wakes a stopped background worker, which resumes the events stream
    // after its saved cursor and recounts the badge.
    sendRuntimeMessage({ type: 'presence:refresh' });
    return onSettingsChanged(setSettings);
  }, []);
  const client = useMemo(
    () => (settings && isLinked(settings) ? createPresenceClient({ baseUrl: settings.serverUrl, token: settings.key }) : null),
    [settings],
  );
  if (!settings) return <Loading label="Opening…" />;
  if (!client)
    return (
      <main className="popup not-linked">
        <h1>Presence</h1>
        <p>This browser is not linked to a presence yet.</p>
        <p className="muted">
          Make a link code with <code>presence link</code> (or POST /v1/links with an admin key), then enter it in Options.
        </p>
        <button type="button" onClick={openOptions}>
          Open Options
        </button>
      </main>
    );
  // A new link (address or key) remounts the views, so nothing shown belongs to the old one.
  return (
    <PopupView
      key={`${settings.serverUrl} ${settings.linkedAt}`}
      client={client}
      name={settings.presenceName ?? 'Presence'}
      initialTab={initialTab}
    />
  );
}

export function PopupView({ client, name, initialTab = 'chat' }: { client: PresenceClient; name: string; initialTab?: TabName }) {
  const [tab, setTab] = useState<TabName>(initialTab);
  const [pending, setPending] = useState(0);
  const tabRefs = useRef<Partial<Record<TabName, HTMLButtonElement | null>>>({});
  const onCount = useCallback((n: number) => setPending(n), []);

  // Arrow keys, Home and End move between tabs (WAI-ARIA tabs pattern, automatic activation).
  const onKeyDown = (e: KeyboardEvent) => {
    const i = TABS.indexOf(tab);
    const next =
      e.key === 'ArrowRight'
        ? TABS[(i + 1) % TABS.length]
        : e.key === 'ArrowLeft'
          ? TABS[(i + TABS.length - 1) % TABS.length]
          : e.key === 'Home'
            ? TABS[0]
            : e.key === 'End'
              ? TABS[TABS.length - 1]
              : undefined;
    if (!next) return;
    e.preventDefault();
    setTab(next);
    tabRefs.current[next]?.focus();
  };

  return (
    <main className="popup">
      <header className="popup-header">
        <h1 data-testid="presence-name">{name}</h1>
        <button type="button" className="icon" aria-label="Options" title="Options" onClick={openOptions}>
          ⚙
        </button>
      </header>
      <div role="tablist" aria-label="Presence" className="tabs" onKeyDown={onKeyDown}>
        {TABS.map((t) => (
          <button
            key={t}
            ref={(el) => {
              tabRefs.current[t] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${t}`}
            data-testid={`tab-${t}`}
            aria-selected={tab === t}
            aria-controls={`panel-${t}`}
            tabIndex={tab === t ? 0 : -1}
            onClick={() => setTab(t)}
          >
            {TAB_LABEL[t]}
            {t === 'pending' && pending > 0 ? (
              <>
                <span className="count" aria-hidden="true">
                  {pending}
                </span>
                <span className="visually-hidden">, {pending} waiting</span>
              </>
            ) : null}
          </button>
        ))}
      </div>
      {TABS.map((t) => (
        <section key={t} role="tabpanel" id={`panel-${t}`} aria-labelledby={`tab-${t}`} hidden={tab !== t} className="panel">
          {t === 'chat' ? <ChatTab client={client} onShowPending={() => setTab('pending')} /> : null}
          {t === 'wallet' ? <WalletTab client={client} /> : null}
          {t === 'pending' ? <PendingTab client={client} onCount={onCount} /> : null}
        </section>
      ))}
    </main>
  );
}
