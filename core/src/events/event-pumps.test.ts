// Events across servers sharing one store: two events logs on the same store stand for two
// servers, and a hand-driven wake source for the notifications between them. What is
// appended on one reaches the other's streams when woken, in id order, each id once, across
// the replay→live switch; a lost wake-up is made good by a resync; test keys stay in-process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import type { EventsWake, EventsWakeHandlers } from '../cluster/cluster-port';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { StorePort } from '../store/store-port';
import { createEventsLog, type FeedItem, type Subscription } from './events-log';

/** The notifications between "servers": delivered when the test says so (or dropped). */
function manualWake() {
  const handlers = new Set<EventsWakeHandlers>();
  const wake: EventsWake = {
    subscribe(h) {
      handlers.add(h);
      return () => handlers.delete(h);
    },
  };
  return {
    wake,
    notify: (accountId: string) => {
      for (const h of handlers) h.wake(accountId);
    },
    resync: () => {
      for (const h of handlers) h.resync();
    },
  };
}

const ids = (items: FeedItem[]) => items.flatMap((i) => (i.kind === 'event' ? [i.event.id] : []));

/** Reads a subscription until it has delivered `last`; `started` resolves at its first item. */
function readUntil(sub: Subscription, last: number) {
  let began!: () => void;
  const started = new Promise<void>((r) => (began = r));
  const done = (async () => {
    const seen: FeedItem[] = [];
    for await (const item of sub) {
      began();
      seen.push(item);
      if (ids(seen).at(-1) === last) break;
    }
    sub.close();
    return seen;
  })();
  return Object.assign(done, { started });
}

describe('events pumped from a shared store', () => {
  let dir: string;
  let store: StorePort;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'pumps-'));
    store = await createLowdbStore({ dataDir: dir });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const server = (wake: EventsWake) => createEventsLog({ storeFor: () => store, clock: createManualClock(), wake });
  const emit = (log: ReturnType<typeof server>, i: number) =>
    log.emit({ accountId: 'a', kind: 'live' }, 'memory', { key: `topic:p${i}`, tier: 'fading' });

  it("an event appended on A reaches a stream on B when B is woken; A's own streams at once", async () => {
    const net = manualWake();
    const a = server(net.wake);
    const b = server(net.wake);
    const onB = b.subscribe({ accountId: 'a', kind: 'live' }, undefined, () => true);
    const onA = a.subscribe({ accountId: 'a', kind: 'live' }, undefined, () => true);
    const readingB = readUntil(onB, 1);
    const readingA = readUntil(onA, 1);
    // Both streams have read where they start (their first item is the cursor).
    await Promise.all([readingA.started, readingB.started]);
    await emit(a, 1);
    expect(ids(await readingA)).toEqual([1]);
    net.notify('a');
    expect(ids(await readingB)).toEqual([1]);
  });

  it('replay→live on B during a burst of appends on A and C: every id once, in order', async () => {
    const net = manualWake();
    const [a, b, c] = [server(net.wake), server(net.wake), server(net.wake)];
    for (let i = 1; i <= 30; i++) await emit(i % 2 ? a : c, i);
    const sub = b.subscribe({ accountId: 'a', kind: 'live' }, 10, () => true);
    const reading = readUntil(sub, 200);
    for (let i = 31; i <= 200; i++) {
      await emit(i % 2 ? a : c, i);
      if (i % 7 === 0) net.notify('a'); // notifications arrive late and coalesced
    }
    net.notify('a');
    const got = ids(await reading);
    expect(got).toEqual(Array.from({ length: 190 }, (_, i) => i + 11));
  });

  it('wake-ups lost while the listening connection was down are made good by the resync', async () => {
    const net = manualWake();
    const a = server(net.wake);
    const b = server(net.wake);
    const sub = b.subscribe({ accountId: 'a', kind: 'live' }, 0, () => true);
    const reading = readUntil(sub, 5);
    for (let i = 1; i <= 5; i++) await emit(a, i); // no notify: all lost
    net.resync();
    expect(ids(await reading)).toEqual([1, 2, 3, 4, 5]);
  });

  it("test keys' events stay on the server that emitted them (no pump, no store read)", async () => {
    const net = manualWake();
    const a = server(net.wake);
    const sub = a.subscribe({ accountId: 'a', kind: 'test' }, undefined, () => true);
    const reading = readUntil(sub, 1);
    await reading.started;
    await a.emit({ accountId: 'a', kind: 'test' }, 'message', { text: 'simulated', cause: 'test' });
    expect(ids(await reading)).toEqual([1]);
  });
});
