// @vitest-environment node
// The background worker as Chromium runs it (startBackground wires chrome.*), against the
// real server: the badge follows held confirmations, notifications for needs_confirm and
// unprompted messages (and not when switched off), the cursor survives a service-worker
// restart, the alarm wakes it, and a revoked key shows on the badge.

import { createPresenceClient, readableSummary } from '@presence/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventsWorker, WorkerDeps } from '../../src/background/events-worker';
import { startBackground, WAKE_ALARM } from '../../src/background/main';
import type { EventsCursor, Settings } from '../../src/lib/settings';
import { createFakeChrome, type FakeChrome } from '../helpers/fake-chrome';
import { adminClient, extensionClient, extensionKey, storeLink } from '../helpers/presence';

const admin = () => adminClient('worker');
let fake: FakeChrome;
let worker: EventsWorker | undefined;

function boot(from?: FakeChrome, overrides: Partial<WorkerDeps> = {}): EventsWorker {
  fake = createFakeChrome();
  if (from) for (const [k, v] of from.state.store) fake.state.store.set(k, structuredClone(v));
  (globalThis as unknown as { chrome: unknown }).chrome = fake;
  worker = startBackground({ reconnect: { baseDelayMs: 50, maxDelayMs: 200 }, log: () => undefined, ...overrides });
  return worker;
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const badge = () => fake.state.badge.text;
const cursor = () => fake.state.store.get('events') as EventsCursor | undefined;

async function hold(text: string) {
  const r = await admin().wallet.intent({ do: text });
  if (r.status !== 'needs_confirm') throw new Error('expected a held intent');
  return r;
}

beforeEach(() => {
  fake = createFakeChrome();
});
afterEach(async () => {
  worker?.stop();
  worker = undefined;
  const { confirmations } = await admin().confirm.list({ status: 'held' });
  for (const c of confirmations) await admin().confirm.deny(c.confirm_id);
});

describe('background worker', () => {
  it('not linked: empty badge, a title that says so, and the wake alarm every 30 s', async () => {
    boot();
    await until(() => fake.state.badge.title !== '', 'the badge title');
    expect(badge()).toBe('');
    expect(fake.state.badge.title).toMatch(/not linked/);
    expect(fake.state.alarms.get(WAKE_ALARM)).toEqual({ periodInMinutes: 0.5 });
  });

  it('badge counts held confirmations 1 → 2 → 0, with a notification per needs_confirm that clears when answered', async () => {
    const { key } = await extensionKey('worker');
    storeLink(fake, key, { presenceName: 'Ada' });
    const w = boot(fake);
    await until(() => fake.state.badge.title === 'Presence: nothing waiting', 'the first count');
    expect(badge()).toBe('');

    const a = await hold('swap 20 USDC for WETH');
    await until(() => badge() === '1', 'badge 1');
    await until(() => fake.state.notifications.has(`confirm:${a.confirm_id}`), 'the notification');
    expect(fake.state.notifications.get(`confirm:${a.confirm_id}`)).toEqual({
      title: 'Presence is waiting for your approval',
      // The quote rounded for people, not its 18 digits.
      message: `${readableSummary(a.summary)} (20 USDC). Open Presence to approve or deny.`,
    });
    expect(fake.state.notifications.get(`confirm:${a.confirm_id}`)?.message).not.toContain(a.summary.replace(/^.*\(quoted /, ''));
    // Open pages are told too.
    expect(fake.state.sent).toContainEqual(
      expect.objectContaining({ type: 'presence:event', event: expect.objectContaining({ type: 'needs_confirm' }) }),
    );

    const b = await hold('swap 21 USDC for WETH');
    await until(() => badge() === '2', 'badge 2');
    await admin().confirm.approve(a.confirm_id);
    await until(() => badge() === '1', 'badge back to 1');
    expect(fake.state.notifications.has(`confirm:${a.confirm_id}`)).toBe(false);
    await admin().confirm.deny(b.confirm_id);
    await until(() => badge() === '', 'badge cleared');
    expect(fake.state.badge.title).toBe('Presence: nothing waiting');
    await until(() => (cursor()?.lastEventId ?? 0) === w.lastEventId, 'the cursor to be saved');
    expect(cursor()?.lastEventId).toBeGreaterThan(0);
  });

  it('overlapping wake-ups (install, alarm, storage change) open one stream at a time', async () => {
    const { key } = await extensionKey('worker');
    storeLink(fake, key);
    let subscribes = 0;
    const w = boot(fake, {
      createClient: (s) => {
        const client = createPresenceClient({ baseUrl: s.serverUrl, token: s.key });
        const subscribe = client.events.subscribe;
        client.events.subscribe = (options) => {
          subscribes++;
          return subscribe(options);
        };
        return client;
      },
    });
    // The start-up ensure() is already under way; three more arrive together, one of them a restart.
    await Promise.all([w.ensure(), w.ensure(), w.restart(), w.ensure()]);
    expect(subscribes).toBe(2); // the start-up stream, and the one restart() replaced it with
    const a = await hold('swap 26 USDC for WETH');
    await until(() => fake.state.notifications.has(`confirm:${a.confirm_id}`), 'the notification');
    // A marker: another hold, notified after anything the events before it caused; a second
    // stream would have notified `a` twice by then.
    const marker = await hold('swap 27 USDC for WETH');
    await until(() => fake.state.notifications.has(`confirm:${marker.confirm_id}`), 'the marker notification');
    expect(fake.state.notified.filter((n) => n.id === `confirm:${a.confirm_id}`)).toHaveLength(1);
  });

  it('resumes after a service-worker restart from the persisted cursor: nothing missed, nothing repeated', async () => {
    const { key } = await extensionKey('worker');
    storeLink(fake, key);
    boot(fake);
    const a = await hold('swap 22 USDC for WETH');
    await until(() => fake.state.notifications.has(`confirm:${a.confirm_id}`), 'the first notification');
    await until(() => cursor() !== undefined && cursor()!.lastEventId > 0, 'the cursor');
    const before = fake;
    const saved = cursor()!.lastEventId;

    // Chromium stops the idle worker; meanwhile another action is held.
    worker!.stop();
    const b = await hold('swap 23 USDC for WETH');

    // The wake alarm starts a fresh worker (new module state, same storage).
    boot(before);
    fake.alarms.onAlarm.emit({ name: WAKE_ALARM });
    await until(() => fake.state.notifications.has(`confirm:${b.confirm_id}`), 'the missed needs_confirm');
    await until(() => badge() === '2', 'badge 2 after the restart');
    expect(fake.state.notified.map((n) => n.id)).toEqual([`confirm:${b.confirm_id}`]); // a was not notified again
    await until(() => cursor()!.lastEventId > saved, 'the cursor to move on');
  });

  it('notifies unprompted messages (a held action from chat, resolved) and respects the switches', async () => {
    const { key } = await extensionKey('worker');
    storeLink(fake, key, { presenceName: 'Ada' });
    boot(fake);
    await until(() => fake.state.badge.title !== '', 'the first count');
    const turn = await extensionClient(key).messages.send({ text: 'swap 24 USDC for WETH', allow_act: true });
    expect(turn.confirm_id).toBeDefined();
    await admin().confirm.approve(turn.confirm_id!);
    await until(() => fake.state.notified.some((n) => n.id.startsWith('message:')), 'the message notification');
    const note = fake.state.notified.find((n) => n.id.startsWith('message:'))!;
    expect(note.title).toBe('Ada');
    expect(note.message).toMatch(/^Approved and done: swap 24 USDC/);

    // Both switches off (as the options page writes them): the badge still counts, nothing pops up.
    const settings = fake.state.store.get('settings') as Settings;
    await fake.storage.local.set({ settings: { ...settings, notifyConfirm: false, notifyMessages: false } });
    const count = fake.state.notified.length;
    const c = await extensionClient(key).messages.send({ text: 'swap 25 USDC for WETH', allow_act: true });
    await until(() => badge() === '1', 'badge 1');
    await admin().confirm.deny(c.confirm_id!);
    await until(() => badge() === '', 'badge cleared');
    // A marker the badge shows (switches off, it still counts): a hold after the denial's
    // events, so once the badge counts it, the worker has handled every event before it.
    await hold('swap 28 USDC for WETH');
    await until(() => badge() === '1', 'badge 1 for the marker');
    expect(fake.state.notified.length).toBe(count);
  });

  it('a revoked key shows "!" on the badge and is not retried until the settings change', async () => {
    const r = await extensionKey('worker');
    storeLink(fake, r.key);
    boot(fake);
    await until(() => fake.state.badge.title === 'Presence: nothing waiting', 'the first count');
    await admin().keys.revoke(r.key_id);
    await until(() => badge() === '!', 'the refused-key badge');
    expect(fake.state.badge.title).toMatch(/refused/);
    await worker!.ensure();
    expect(worker!.running).toBeNull();

    // Linking again (a new key) starts over.
    const again = await extensionKey('worker');
    const settings = fake.state.store.get('settings') as Settings;
    await fake.storage.local.set({ settings: { ...settings, key: again.key, linkedAt: Date.now() } });
    await until(() => badge() === '' && worker!.running !== null, 'a fresh stream');
  });
});
