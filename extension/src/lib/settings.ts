// What the extension keeps, all in chrome.storage.local (never synced): the link (server
// address, key, presence name), the notification switches, and, under a separate storage
// key, the events cursor, so the worker's frequent cursor writes never look like a settings
// change to the listeners that restart the stream.
import { DEFAULT_BASE_URL } from '@presence/client';

export type Settings = {
  /** Normalised origin-style address, e.g. http://127.0.0.1:8787 (no trailing slash). */
  serverUrl: string;
  /** prs_live_… or prs_test_…; null until linked. */
  key: string | null;
  /** The presence's name as GET /v1/presence/me answered when linking. */
  presenceName: string | null;
  /** When the current key was linked (ms since epoch); a new link restarts the events cursor. */
  linkedAt: number | null;
  /** A random id for this install, sent as user_id when redeeming link codes. */
  installId: string;
  notifyConfirm: boolean;
  notifyMessages: boolean;
};

/** Where the events stream resumes: the last event id handed out for the link made at `linkedAt`. */
export type EventsCursor = { linkedAt: number; lastEventId: number };

export const SETTINGS_KEY = 'settings';
export const CURSOR_KEY = 'events';

export const defaultSettings = (): Settings => ({
  serverUrl: DEFAULT_BASE_URL,
  key: null,
  presenceName: null,
  linkedAt: null,
  installId: crypto.randomUUID(),
  notifyConfirm: true,
  notifyMessages: true,
});

export type LinkedSettings = Settings & { key: string; linkedAt: number };
export const isLinked = (s: Settings): s is LinkedSettings => s.key !== null && s.linkedAt !== null;

/** Reads the settings, filling in defaults; writes them back once when the install id is new. */
export async function loadSettings(): Promise<Settings> {
  const got = await chrome.storage.local.get(SETTINGS_KEY);
  const stored = got[SETTINGS_KEY] as Partial<Settings> | undefined;
  const settings = { ...defaultSettings(), ...stored };
  if (!stored?.installId) await chrome.storage.local.set({ [SETTINGS_KEY]: settings });
  return settings;
}

export async function saveSettings(patch: Partial<Settings>): Promise<Settings> {
  const next = { ...(await loadSettings()), ...patch };
  await chrome.storage.local.set({ [SETTINGS_KEY]: next });
  return next;
}

export async function loadCursor(): Promise<EventsCursor | undefined> {
  const got = await chrome.storage.local.get(CURSOR_KEY);
  return got[CURSOR_KEY] as EventsCursor | undefined;
}

export async function saveCursor(cursor: EventsCursor): Promise<void> {
  await chrome.storage.local.set({ [CURSOR_KEY]: cursor });
}

/** Calls `listener` with the new settings whenever another page or the worker changes them. */
export function onSettingsChanged(listener: (settings: Settings) => void): () => void {
  const handler = (changes: Record<string, chrome.storage.StorageChange>, area: string) => {
    if (area !== 'local' || !(SETTINGS_KEY in changes)) return;
    const next = changes[SETTINGS_KEY]?.newValue as Partial<Settings> | undefined;
    listener({ ...defaultSettings(), ...next });
  };
  chrome.storage.onChanged.addListener(handler);
  return () => chrome.storage.onChanged.removeListener(handler);
}
