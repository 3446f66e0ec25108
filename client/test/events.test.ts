// The events iterator against a real server behind a TCP proxy that can cut connections:
// no gap and no duplicate across a forced disconnect, in order; typed stop on 401/403;
// quiet stop on abort.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPresenceClient, type EventsItem, PresenceApiError, type ReconnectInfo } from '../src/index';
import { collect, waitFor } from './helpers/collect';
import { startProxy } from './helpers/proxy';
import { startTestServer, type TestServer } from './helpers/server';

let s: TestServer;
let proxy: Awaited<ReturnType<typeof startProxy>>;
beforeAll(async () => {
  s = await startTestServer();
  proxy = await startProxy(s.url);
});
afterAll(async () => {
  await proxy?.close();
  await s?.stop();
});

let n = 0;
const emit = () => s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: `topic:e${++n}`, tier: 'fading' });
const latest = async () => (await s.core.events.bounds({ accountId: 'default', kind: 'live' })).latest;
const ids = (items: EventsItem[]) => items.map((e) => (e.type === 'gap' ? 'gap' : e.id));
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('client.events.subscribe', () => {
  it('resumes across a dropped socket: every id once, in order, no gap', async () => {
    const base = await latest();
    let opens = 0;
    const reconnects: ReconnectInfo[] = [];
    const ctl = new AbortController();
    const c = createPresenceClient({ baseUrl: proxy.url, token: s.live });
    const sub = c.events.subscribe({
      signal: ctl.signal,
      reconnect: { baseDelayMs: 200 },
      onOpen: () => opens++,
      onReconnect: (r) => reconnects.push(r),
    });
    const got = collect(sub);
    await waitFor(() => opens === 1);
    for (let i = 0; i < 5; i++) await emit();
    await got.until(() => got.items.length === 5);

    proxy.dropAll();
    // Emitted while nobody is connected: they must arrive after the reconnect.
    for (let i = 0; i < 5; i++) await emit();
    await waitFor(() => opens === 2);
    for (let i = 0; i < 5; i++) await emit();
    // One more event as a marker: it arrives in order, so a duplicate would have come before it.
    const marker = await emit();
    await got.until(() => ids(got.items).includes(marker.id));

    expect(ids(got.items)).toEqual(range(base + 1, 16));
    expect(got.items.every((e) => e.type === 'memory')).toBe(true);
    expect(got.items[0]?.data).toMatchObject({ key: expect.stringMatching(/^topic:e/), tier: 'fading', at: expect.any(String) });
    expect(reconnects.length).toBeGreaterThanOrEqual(1);
    expect(reconnects[0]?.error.name).toBe('PresenceNetworkError');
    expect(sub.lastEventId).toBe(base + 16);

    ctl.abort();
    await got.done;
    expect(got.error).toBeUndefined();
  });

  it('drops duplicates the server sends again after a reconnect', async () => {
    const base = await latest();
    let opens = 0;
    let rewound = 0;
    // At-least-once made visible: on reconnect, ask for three events we already have.
    const rewinding: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      const last = headers.get('last-event-id');
      if (last !== null) {
        headers.set('last-event-id', String(Number(last) - 3));
        rewound++;
      }
      return fetch(input, { ...init, headers });
    };
    const c = createPresenceClient({ baseUrl: proxy.url, token: s.live, fetch: rewinding });
    const sub = c.events.subscribe({ lastEventId: base, reconnect: { baseDelayMs: 50 }, onOpen: () => opens++ });
    const got = collect(sub);
    await waitFor(() => opens === 1);
    for (let i = 0; i < 6; i++) await emit();
    await got.until(() => got.items.length === 6);
    proxy.dropAll();
    await waitFor(() => opens === 2);
    for (let i = 0; i < 2; i++) await emit();
    // One more event as a marker: it arrives in order, so a replayed duplicate would have come before it.
    const marker = await emit();
    await got.until(() => ids(got.items).includes(marker.id));
    expect(rewound).toBeGreaterThanOrEqual(2); // the first connect also carried a Last-Event-ID
    expect(ids(got.items)).toEqual(range(base + 1, 9));
    sub.close();
    await got.done;
  });

  it('replays from lastEventId 0 and stops with a typed auth error when its key is revoked', async () => {
    const admin = createPresenceClient({ baseUrl: s.url, token: s.live });
    const k = await admin.keys.create({ name: 'doomed', scopes: ['memory:read'] });
    let opens = 0;
    const sub = createPresenceClient({ baseUrl: s.url, token: k.secret }).events.subscribe({
      lastEventId: 0,
      reconnect: { baseDelayMs: 20 },
      onOpen: () => opens++,
    });
    const got = collect(sub);
    const top = await latest();
    await got.until(() => got.items.length === top);
    expect(ids(got.items)).toEqual(range(1, top));
    await admin.keys.revoke(k.id);
    await got.done;
    expect(got.error).toBeInstanceOf(PresenceApiError);
    expect(got.error).toMatchObject({ type: 'auth', status: 401 });
    expect(opens).toBe(1);
  });

  it('a key without an events scope gets the typed 403 at once', async () => {
    const admin = createPresenceClient({ baseUrl: s.url, token: s.live });
    const k = await admin.keys.create({ name: 'writer', scopes: ['memory:write'] });
    const got = collect(createPresenceClient({ baseUrl: s.url, token: k.secret }).events.subscribe());
    await got.done;
    expect(got.error).toMatchObject({ type: 'scope', status: 403 });
    expect(got.items).toEqual([]);
  });

  it('aborting ends the iteration quietly, while connected or while waiting to reconnect', async () => {
    const ctl = new AbortController();
    let opens = 0;
    const got = collect(
      createPresenceClient({ baseUrl: s.url, token: s.live }).events.subscribe({ signal: ctl.signal, onOpen: () => opens++ }),
    );
    await waitFor(() => opens === 1);
    ctl.abort();
    await got.done;
    expect(got.error).toBeUndefined();

    const waiting = new AbortController();
    const reconnects: ReconnectInfo[] = [];
    const down = collect(
      createPresenceClient({ baseUrl: 'http://127.0.0.1:9', token: s.live }).events.subscribe({
        signal: waiting.signal,
        reconnect: { baseDelayMs: 60_000 },
        onReconnect: (r) => reconnects.push(r),
      }),
    );
    await waitFor(() => reconnects.length === 1);
    waiting.abort();
    await down.done;
    expect(down.error).toBeUndefined();
  });
});
