// What a key's events stream shows, decided in core: only the types its scopes cover, and a
// message's text redacted when it drew on a scope the key lacks — over the real events log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Scope } from '@presence/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createEventsLog, type FeedItem } from '../events/events-log';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { EmbeddedStore } from '../store/store-port';
import { subscribeVisibleEvents } from './visible-events';

describe('subscribeVisibleEvents', () => {
  let dir: string;
  let store: EmbeddedStore;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'visible-events-'));
    store = await createLowdbStore({ dataDir: dir });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Replays the account's three events for a key holding `scopes`: what it is shown. */
  async function shown(scopes: Scope[]): Promise<FeedItem[]> {
    const log = createEventsLog({ storeFor: () => store, clock: createManualClock() });
    const caller = { accountId: 'a', kind: 'live' } as const;
    await log.emit(caller, 'message', { text: 'You hold 12 WETH', cause: 'standing:st_1', scopes: ['wallet:read'] });
    await log.emit(caller, 'memory', { key: 'topic:x', tier: 'pinned' });
    const last = await log.emit(caller, 'message', { text: 'hello', cause: 'standing:st_2' });
    const sub = subscribeVisibleEvents(log, { ...caller, scopes }, 0);
    const items: FeedItem[] = [];
    for await (const item of sub) {
      items.push(item);
      if (item.kind === 'event' && item.event.id === last.id) break;
    }
    sub.close();
    return items;
  }

  const texts = (items: FeedItem[]) => items.flatMap((i) => (i.kind === 'event' && i.event.type === 'message' ? [i.event.data.text] : []));

  it('passes over the types a key has no scope for and redacts text drawn on a scope it lacks', async () => {
    const items = await shown(['talk']);
    expect(items.map((i) => (i.kind === 'event' ? i.event.type : i.kind))).toEqual(['message', 'message']);
    expect(texts(items)[0]).toMatch(/^\[redacted: this drew on wallet:read/);
    expect(texts(items)[1]).toBe('hello');
  });

  it('shows a key holding every scope each event whole', async () => {
    const items = await shown(['talk', 'wallet:read', 'memory:read']);
    expect(items.map((i) => (i.kind === 'event' ? i.event.type : i.kind))).toEqual(['message', 'memory', 'message']);
    expect(texts(items)).toEqual(['You hold 12 WETH', 'hello']);
  });
});
