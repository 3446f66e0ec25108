// The test keys' overlay over a real (embedded) live store: reads go through and see the
// overlay's own writes; writes never reach the live store or its files; a changed record
// keeps reading live in the fields the overlay left alone; events, intents and answers are
// the overlay's own; each family is capped per account and an idle overlay is dropped; and
// through the events log, a test key's events reach test streams only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KeyKind } from '@presence/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiKey, intentRecord, memo, standing as standingRecord } from '../../testing/fixtures';
import { createManualClock, type ManualClock } from '../clock/clock';
import { createEventsLog, type FeedItem, type Subscription } from '../events/events-log';
import type { AccountRecord, IdempotencyRecord } from './documents';
import { createLowdbStore } from './lowdb/lowdb-store';
import { createOverlayStore } from './overlay-store';
import type { StorePort } from './store-port';

const account = (id: string): AccountRecord => ({
  id,
  name: id,
  created_at: new Date(0).toISOString(),
  presence: { name: 'Presence', model: 'local', preferences: {} },
  policy: null,
});
// The contract's fixtures, for the account 'a' every test here uses.
const key = (id: string) => apiKey(id, 'a', [`hash-${id}`]);
const standing = (id: string) => standingRecord('a', id);
const answer = (k: string, created_at: number): IdempotencyRecord => ({
  key: k,
  fingerprint: `fp-${k}`,
  status: 200,
  headers: {},
  body: '{}',
  created_at,
});
const pin = (s: StorePort, k: string, note = '') => s.changeMemory('a', [k], () => ({ put: [memo(k, note)], result: undefined }));
const keysOf = async (s: StorePort) => (await s.readMemory('a')).map((e) => e.key);
let said = 0;
const say = (s: StorePort, text: string) => s.appendThread('a', { kind: 'presence', at: ++said, text, cause: 'test' });
const event = (s: StorePort, n: number) => s.appendEvent('a', { type: 'message', data: { n }, at: 0 });

describe('overlay store', () => {
  let dir: string;
  let live: StorePort;
  let clock: ManualClock;
  let overlay: StorePort;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'overlay-'));
    live = await createLowdbStore({ dataDir: dir });
    await live.createAccount(account('a'));
    clock = createManualClock(1_000_000);
    overlay = createOverlayStore(live, { clock, caps: { maxRecords: 3, idleMs: 60_000 } });
  });
  afterEach(async () => {
    await live.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads go through to live data, including what live writes later', async () => {
    await pin(live, 'token:WETH');
    await live.insertKey(key('key_1'));
    await say(live, 'hello');
    await live.putStanding(standing('st_1'));
    expect(await overlay.getAccount('a')).toEqual(await live.getAccount('a'));
    await live.updateAccount('a', (a) => ({ ...a, presence: { ...a.presence, name: 'renamed' } }));
    await pin(live, 'token:USDC');
    expect((await overlay.getAccount('a'))?.presence.name).toBe('renamed');
    expect(await keysOf(overlay)).toEqual(['token:WETH', 'token:USDC']);
    expect((await overlay.listKeys('a')).map((k) => k.id)).toEqual(['key_1']);
    expect(await overlay.findKeyBySecretHash('hash-key_1')).toMatchObject({ id: 'key_1' });
    expect((await overlay.readThread('a', { limit: 10 })).map((e) => e.id)).toEqual([1]);
    expect((await overlay.listStanding('a')).map((r) => r.id)).toEqual(['st_1']);
  });

  it('writes are seen through the overlay and never by the live store, nor after it reopens', async () => {
    await pin(live, 'token:WETH');
    await overlay.updateAccount('a', (a) => ({ ...a, presence: { ...a.presence, name: 'Zed' } }));
    await pin(overlay, 'topic:secret');
    await overlay.changeMemory('a', ['token:WETH'], () => ({ remove: ['token:WETH'], result: undefined }));
    await overlay.insertKey(key('key_2'));
    await overlay.putStanding(standing('st_2'));
    await say(overlay, 'only for tests');

    expect((await overlay.getAccount('a'))?.presence.name).toBe('Zed');
    expect(await keysOf(overlay)).toEqual(['topic:secret']);
    expect(await overlay.getKey('key_2')).toMatchObject({ id: 'key_2' });
    expect((await overlay.listStanding('a')).map((r) => r.id)).toEqual(['st_2']);
    expect((await overlay.readThread('a', { limit: 10 })).map((e) => e.kind === 'presence' && e.text)).toEqual(['only for tests']);

    const unchanged = async (s: StorePort) => {
      expect((await s.getAccount('a'))?.presence.name).toBe('Presence');
      expect(await keysOf(s)).toEqual(['token:WETH']);
      expect(await s.getKey('key_2')).toBeNull();
      expect(await s.listStanding('a')).toEqual([]);
      expect(await s.readThread('a', { limit: 10 })).toEqual([]);
    };
    await unchanged(live);
    await live.close();
    live = await createLowdbStore({ dataDir: dir });
    await unchanged(live);
  });

  it('a record the overlay changed keeps reading live in the fields it left alone', async () => {
    await overlay.updateAccount('a', (a) => ({ ...a, presence: { ...a.presence, name: 'Zed' } }));
    const policy = { ...(await import('@presence/protocol')).defaultPolicy, version: 1, updated_at: new Date(0).toISOString() };
    await live.updateAccount('a', (a) => ({ ...a, policy }));
    expect(await overlay.getAccount('a')).toMatchObject({ presence: { name: 'Zed' }, policy: { version: 1 } });

    await pin(overlay, 'token:WETH', 'mine');
    await pin(live, 'token:WETH', 'theirs');
    await pin(live, 'token:DAI');
    expect((await overlay.readMemory('a')).map((e) => [e.key, e.note])).toEqual([
      ['token:WETH', 'mine'],
      ['token:DAI', ''],
    ]);
  });

  it('updates of one record run one at a time: concurrent writes lose nothing', async () => {
    const wide = createOverlayStore(live, { clock, caps: { maxRecords: 100 } });
    await Promise.all(Array.from({ length: 20 }, (_, i) => pin(wide, `topic:t${i}`)));
    expect((await keysOf(wide)).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `topic:t${i}`).sort());
  });

  it('its thread entries merge into the live thread by id', async () => {
    await say(live, 'one');
    await say(overlay, 'mine');
    await say(live, 'two');
    const texts = async (s: StorePort, before?: number) =>
      (await s.readThread('a', { before, limit: 10 })).map((e) => (e.kind === 'presence' ? `${e.id}:${e.text}` : ''));
    expect(await texts(overlay)).toEqual(['1:one', '2:mine', '2:two']);
    expect(await texts(overlay, 2)).toEqual(['1:one']);
    expect(await texts(live)).toEqual(['1:one', '2:two']);
  });

  it('events, intents and Idempotency-Key answers are its own: neither side sees the other’s', async () => {
    for (let i = 0; i < 3; i++) await event(live, i);
    expect(await overlay.eventBounds('a')).toEqual({ oldest: null, latest: 0 });
    expect((await event(overlay, 9)).id).toBe(1);
    expect((await overlay.eventsAfter('a', 0, 10)).map((e) => e.data.n)).toEqual([9]);
    expect((await live.eventsAfter('a', 0, 10)).map((e) => e.data.n)).toEqual([0, 1, 2]);

    await live.createIntent(intentRecord('in_live', 1, { state: 'held', confirm_id: 'cf_live', value_usd: '5' }));
    await overlay.createIntent(intentRecord('in_test', 2, { idempotency_key: 'k', value_usd: '7' }));
    expect(await overlay.findIntentByConfirmId('a', 'cf_live')).toBeNull();
    expect((await overlay.listIntents('a')).map((r) => r.id)).toEqual(['in_test']);
    expect(await overlay.spentSince('a', 0)).toBe(7n);
    expect(await live.getIntent('a', 'in_test')).toBeNull();
    expect(await live.spentSince('a', 0)).toBe(0n);
    expect(await overlay.transitionIntent('a', 'in_test', ['executing'], 'done', { block: 3 })).toMatchObject({ state: 'done', block: 3 });
    expect(await overlay.transitionIntent('a', 'in_test', ['executing'], 'failed')).toBeNull();

    await overlay.putIdempotencyRecord('a', answer('k-test', clock.now()));
    expect(await live.getIdempotencyRecord('a', 'k-test')).toBeNull();
  });

  it('keeps each family’s last changes per account; an older change is forgotten and reads live again', async () => {
    await live.putStanding(standing('st_live'));
    await overlay.updateStanding('a', 'st_live', (r) => ({ ...r, state: 'cancelled' }));
    expect((await overlay.listStanding('a')).find((r) => r.id === 'st_live')?.state).toBe('cancelled');
    for (const id of ['st_1', 'st_2', 'st_3']) await overlay.putStanding(standing(id));
    expect((await overlay.listStanding('a')).map((r) => [r.id, r.state])).toEqual([
      ['st_live', 'active'],
      ['st_1', 'active'],
      ['st_2', 'active'],
      ['st_3', 'active'],
    ]);

    for (let i = 1; i <= 5; i++) await pin(overlay, `topic:t${i}`);
    expect(await keysOf(overlay)).toEqual(['topic:t3', 'topic:t4', 'topic:t5']);

    for (let i = 1; i <= 5; i++) await event(overlay, i);
    expect((await overlay.eventsAfter('a', 0, 10)).map((e) => e.id)).toEqual([3, 4, 5]);
    expect(await overlay.eventBounds('a')).toEqual({ oldest: 3, latest: 5 });

    for (let i = 1; i <= 5; i++) await overlay.createIntent(intentRecord(`in_${i}`, i, { idempotency_key: `k${i}` }));
    expect((await overlay.listIntents('a')).map((r) => r.id)).toEqual(['in_3', 'in_4', 'in_5']);
    expect(await overlay.findIntentByIdempotencyKey('a', 'k1')).toBeNull();

    for (let i = 1; i <= 5; i++) await say(overlay, `s${i}`);
    expect((await overlay.readThread('a', { limit: 10 })).map((e) => e.kind === 'presence' && e.text)).toEqual(['s3', 's4', 's5']);

    for (let i = 1; i <= 5; i++) await overlay.putIdempotencyRecord('a', answer(`k${i}`, clock.now()));
    expect(await overlay.getIdempotencyRecord('a', 'k2')).toBeNull();
    expect(await overlay.getIdempotencyRecord('a', 'k3')).toMatchObject({ key: 'k3' });

    // Per account: another account's overlay has caps of its own.
    await live.createAccount(account('b'));
    await overlay.appendEvent('b', { type: 'message', data: {}, at: 0 });
    expect((await overlay.eventsAfter('a', 0, 10)).length).toBe(3);
  });

  it('drops an account’s overlay after it has been idle; event ids keep counting', async () => {
    await pin(overlay, 'topic:t');
    await event(overlay, 1);
    await overlay.createIntent(intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf_1' }));
    clock.advance(59_999);
    expect(await keysOf(overlay)).toEqual(['topic:t']);
    clock.advance(1);
    expect(await keysOf(overlay)).toEqual([]);
    expect(await overlay.eventsAfter('a', 0, 10)).toEqual([]);
    expect(await overlay.eventBounds('a')).toEqual({ oldest: null, latest: 1 });
    expect(await overlay.findIntentByConfirmId('a', 'cf_1')).toBeNull();
    expect((await event(overlay, 2)).id).toBe(2);
  });

  it('through the events log, a test key’s events reach test streams and never live ones', async () => {
    const stores: Record<KeyKind, StorePort> = { live, test: overlay };
    const events = createEventsLog({ storeFor: (k) => stores[k], clock });
    const read = async (sub: Subscription, n: number) => {
      const got: number[] = [];
      for await (const item of sub as AsyncIterable<FeedItem>) {
        if (item.kind === 'event') got.push(Number(item.event.data.text));
        if (got.length === n) break;
      }
      sub.close();
      return got;
    };
    const liveSub = events.subscribe({ accountId: 'a', kind: 'live' }, 0, () => true);
    const testSub = events.subscribe({ accountId: 'a', kind: 'test' }, 0, () => true);
    // Each stream's second event was emitted after the other kind's: a leak would arrive before it.
    await events.emit({ accountId: 'a', kind: 'test' }, 'message', { text: '1', cause: 'test' });
    await events.emit({ accountId: 'a', kind: 'live' }, 'message', { text: '2', cause: 'test' });
    await events.emit({ accountId: 'a', kind: 'test' }, 'message', { text: '3', cause: 'test' });
    await events.emit({ accountId: 'a', kind: 'live' }, 'message', { text: '4', cause: 'test' });
    expect(await read(testSub, 2)).toEqual([1, 3]);
    expect(await read(liveSub, 2)).toEqual([2, 4]);
    expect((await live.eventsAfter('a', 0, 10)).map((e) => Number(e.data.text))).toEqual([2, 4]);
  });
});
