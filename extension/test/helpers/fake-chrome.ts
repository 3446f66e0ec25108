// The only fake in the component tests: an in-memory stand-in for the chrome.* APIs the
// extension uses (storage.local, permissions, runtime messaging, action badge, notifications,
// alarms). Everything else (the SDK, the server, the chain) is real.

type Listener<A extends unknown[]> = (...args: A) => unknown;

export class FakeEvent<A extends unknown[]> {
  readonly listeners = new Set<Listener<A>>();
  addListener = (l: Listener<A>) => void this.listeners.add(l);
  removeListener = (l: Listener<A>) => void this.listeners.delete(l);
  hasListener = (l: Listener<A>) => this.listeners.has(l);
  emit(...args: A) {
    for (const l of [...this.listeners]) l(...args);
  }
}

export type FakeChrome = ReturnType<typeof createFakeChrome>;

export function createFakeChrome() {
  const store = new Map<string, unknown>();
  const onChanged = new FakeEvent<[Record<string, { oldValue?: unknown; newValue?: unknown }>, string]>();
  const onMessage = new FakeEvent<[unknown, unknown, (r?: unknown) => void]>();
  const granted = new Set<string>();
  const badge = { text: '', title: '', color: '' as unknown };
  const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

  const fake = {
    /** What the tests look at. */
    state: {
      store,
      granted,
      badge,
      /** Answer for permissions.request: grant (default), deny, or throw. */
      permissionAnswer: 'grant' as 'grant' | 'deny' | 'throw',
      permissionRequests: [] as string[][],
      sent: [] as unknown[],
      notifications: new Map<string, { title: string; message: string }>(),
      notified: [] as { id: string; title: string; message: string }[],
      optionsOpened: 0,
      tabsOpened: [] as string[],
      alarms: new Map<string, unknown>(),
    },
    storage: {
      local: {
        async get(keys?: string | string[] | null) {
          const list = keys == null ? [...store.keys()] : Array.isArray(keys) ? keys : [keys];
          const out: Record<string, unknown> = {};
          for (const k of list) if (store.has(k)) out[k] = clone(store.get(k));
          return out;
        },
        async set(items: Record<string, unknown>) {
          const changes: Record<string, { oldValue?: unknown; newValue?: unknown }> = {};
          for (const [k, v] of Object.entries(items)) {
            changes[k] = { oldValue: clone(store.get(k)), newValue: clone(v) };
            store.set(k, clone(v));
          }
          // Like Chromium: listeners run after the write, asynchronously.
          queueMicrotask(() => onChanged.emit(changes, 'local'));
        },
        async remove(keys: string | string[]) {
          for (const k of Array.isArray(keys) ? keys : [keys]) store.delete(k);
        },
      },
      onChanged,
    },
    permissions: {
      async request({ origins = [] }: { origins?: string[] }) {
        fake.state.permissionRequests.push(origins);
        if (fake.state.permissionAnswer === 'throw') throw new Error('This function must be called during a user gesture');
        if (fake.state.permissionAnswer === 'deny') return false;
        for (const o of origins) granted.add(o);
        return true;
      },
      async remove({ origins = [] }: { origins?: string[] }) {
        for (const o of origins) granted.delete(o);
        return true;
      },
      async contains({ origins = [] }: { origins?: string[] }) {
        return origins.every((o) => granted.has(o));
      },
    },
    runtime: {
      id: 'fakeextensionid',
      onMessage,
      onStartup: new FakeEvent<[]>(),
      onInstalled: new FakeEvent<[]>(),
      async sendMessage(message: unknown) {
        fake.state.sent.push(message);
      },
      async openOptionsPage() {
        fake.state.optionsOpened++;
      },
      getManifest: () => ({ icons: { '128': 'icon128.png' } }),
      getURL: (p: string) => `chrome-extension://fakeextensionid/${p}`,
    },
    action: {
      async setBadgeText({ text }: { text: string }) {
        badge.text = text;
      },
      async getBadgeText() {
        return badge.text;
      },
      async setBadgeBackgroundColor({ color }: { color: unknown }) {
        badge.color = color;
      },
      async setTitle({ title }: { title: string }) {
        badge.title = title;
      },
      async openPopup() {},
    },
    notifications: {
      async create(id: string, opts: { title: string; message: string }) {
        fake.state.notifications.set(id, { title: opts.title, message: opts.message });
        fake.state.notified.push({ id, title: opts.title, message: opts.message });
        return id;
      },
      async clear(id: string) {
        return fake.state.notifications.delete(id);
      },
      onClicked: new FakeEvent<[string]>(),
    },
    tabs: {
      async create({ url }: { url: string }) {
        fake.state.tabsOpened.push(url);
        return { id: fake.state.tabsOpened.length, url };
      },
    },
    alarms: {
      async create(name: string, info: unknown) {
        fake.state.alarms.set(name, info);
      },
      onAlarm: new FakeEvent<[{ name: string }]>(),
    },
    /** Delivers a runtime message to this page's listeners, as the background worker would. */
    deliver(message: unknown) {
      onMessage.emit(message, { id: 'fakeextensionid' }, () => undefined);
    },
  };
  return fake;
}

export function installFakeChrome(): FakeChrome {
  const fake = createFakeChrome();
  (globalThis as unknown as { chrome: unknown }).chrome = fake;
  return fake;
}
