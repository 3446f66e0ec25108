// The background service worker's wiring: the events worker on top of chrome.*, woken by an
// alarm every 30 s, so a worker Chromium stopped while idle starts again and resumes the
// stream after the persisted cursor. Everything runs at the worker's top level (listeners
// must be registered synchronously for Chromium to deliver the event that woke it).
import { createPresenceClient } from '@presence/client';
import { isRuntimeMessage } from '../lib/runtime-messages';
import { loadCursor, loadSettings, SETTINGS_KEY, saveCursor } from '../lib/settings';
import { createEventsWorker, type EventsWorker, type WorkerDeps } from './events-worker';

export const WAKE_ALARM = 'presence-wake';

const iconUrl = () => {
  const icons = chrome.runtime.getManifest().icons ?? {};
  return chrome.runtime.getURL(icons['128'] ?? icons['64'] ?? Object.values(icons)[0] ?? '');
};

export function startBackground(overrides: Partial<WorkerDeps> = {}): EventsWorker {
  const log: WorkerDeps['log'] =
    overrides.log ?? ((message, error) => console.info(`[presence] ${message}`, error instanceof Error ? error.message : (error ?? '')));
  const worker = createEventsWorker({
    loadSettings,
    loadCursor,
    saveCursor,
    createClient: (s) => createPresenceClient({ baseUrl: s.serverUrl, token: s.key }),
    async setBadge(text, title) {
      await chrome.action.setBadgeBackgroundColor({ color: text === '!' ? '#b91c1c' : '#4338ca' });
      await chrome.action.setBadgeText({ text });
      await chrome.action.setTitle({ title });
    },
    async notify({ id, title, message }) {
      await chrome.notifications.create(id, { type: 'basic', iconUrl: iconUrl(), title, message, priority: 1 });
    },
    async clearNotification(id) {
      await chrome.notifications.clear(id);
    },
    broadcast(message) {
      chrome.runtime.sendMessage(message).catch(() => undefined); // no page open: nobody to tell
    },
    log,
    ...overrides,
  });

  // Without the alarm a worker Chromium stopped stays stopped until the next event: worth a
  // line in the worker's log, not an unhandled rejection.
  chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 }).catch((e: unknown) => log('could not set the wake alarm', e));
  chrome.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === WAKE_ALARM) void worker.ensure();
  });
  chrome.runtime.onStartup.addListener(() => void worker.ensure());
  chrome.runtime.onInstalled.addListener(() => void worker.ensure());
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && SETTINGS_KEY in changes) void worker.restart();
  });
  chrome.runtime.onMessage.addListener((message: unknown) => {
    if (isRuntimeMessage(message) && message.type === 'presence:refresh') void worker.refreshBadge();
    return false;
  });
  chrome.notifications.onClicked.addListener((id) => {
    void chrome.notifications.clear(id);
    // Chromium 127+ opens the popup from here; older ones refuse without a toolbar click, which is fine.
    chrome.action.openPopup?.().catch(() => undefined);
  });

  void worker.ensure().then(() => worker.refreshBadge());
  return worker;
}
