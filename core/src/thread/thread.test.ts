// The thread's cap: an account keeps its newest entries, however long it talks, and a page
// back ends at the oldest kept — over the real lowdb store, reopened to show it on disk too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createEventsLog } from '../events/events-log';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { EmbeddedStore } from '../store/store-port';
import { createThread } from './thread';

describe('the thread', () => {
  let dir: string;
  let store: EmbeddedStore;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'thread-'));
    store = await createLowdbStore({ dataDir: dir, fsync: false });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its newest entries: pruned back to `keep` at every `every`-th append, ids going on', async () => {
    const clock = createManualClock();
    const errors: unknown[] = [];
    const storeFor = () => store;
    const events = createEventsLog({ storeFor, clock });
    const thread = createThread({ store, storeFor, events, clock, onError: (e) => errors.push(e), retention: { keep: 20, every: 10 } });
    const caller = { accountId: 'a', kind: 'live' } as const;
    const ids = async () => (await store.readThread('a', { limit: 1_000 })).map((e) => e.id);
    for (let i = 1; i <= 29; i++) await thread.append(caller, { kind: 'presence', at: i, text: `n${i}`, cause: 'test' });
    // Pruned at 10 (nothing to drop) and at 20 (nothing): all 29 kept until the 30th.
    expect(await ids()).toHaveLength(29);
    await thread.append(caller, { kind: 'presence', at: 30, text: 'n30', cause: 'test' });
    await vi.waitFor(async () => expect(await ids()).toEqual(Array.from({ length: 20 }, (_, i) => i + 11)));
    await thread.say(caller, 'said', 'standing:st_1', []);
    expect((await ids()).at(-1)).toBe(31);
    const page = await thread.page(caller, 12, 50, ['talk']);
    expect(page.messages.map((m) => m.text)).toEqual(['n11']);
    expect(page.next_before).toBeNull();
    await store.close();
    store = await createLowdbStore({ dataDir: dir, fsync: false });
    expect(await ids()).toEqual(Array.from({ length: 21 }, (_, i) => i + 11));
    expect(errors).toEqual([]);
  });
});
