// The events log in isolation: replay-then-live with no gap or duplicate at the switch, and
// backpressure — a consumer that stops reading is ended at its high-water mark instead of
// holding up emitters or growing without bound — while one whose queue fills during a replay
// still gets every id, in order (the replay reads on from the store). What it stores is what
// the protocol's payload schemas read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventDataSchemas } from '@presence/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, iso } from '../clock/clock';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { EmbeddedStore } from '../store/store-port';
import { createEventsLog, type Emitted, type FeedItem } from './events-log';

describe('events log', () => {
  let dir: string;
  let store: EmbeddedStore;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'events-'));
    store = await createLowdbStore({ dataDir: dir });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const emitN = async (log: ReturnType<typeof createEventsLog>, n: number) => {
    for (let i = 0; i < n; i++) await log.emit({ accountId: 'a', kind: 'live' }, 'memory', { key: `topic:t${i}`, tier: 'fading' });
  };
  const ids = (items: FeedItem[]) => items.flatMap((i) => (i.kind === 'event' ? [i.event.id] : []));

  it('stores each type’s payload, stamped with `at`, as the protocol’s schema reads it (nothing stripped, nothing missing)', async () => {
    const clock = createManualClock();
    const log = createEventsLog({ storeFor: () => store, clock });
    const intent = { id: 'in_1', summary: 'send 900 USDC to 0xabc', amount: '900 USDC', source: 'api' };
    const emits: Emitted[] = [
      ['message', { text: 'hi', cause: 'standing:st_1', scopes: ['wallet:read'] }],
      ['tx', { hash: '0x01', block: 7, intent }],
      ['memory', { key: 'topic:x', tier: 'pinned' }],
      [
        'needs_confirm',
        {
          confirm_id: 'cf_1',
          intent_id: 'in_1',
          summary: intent.summary,
          amount: intent.amount,
          value_usd: '900.00',
          expires_at: iso(clock.now() + 300_000),
          timeout_s: 300,
        },
      ],
      ['confirm', { confirm_id: 'cf_1', intent_id: 'in_1', status: 'executed', tx: '0x01', block: 7 }],
      ['webhook_disabled', { webhook_id: 'wh_0123456789abcdef', url: 'https://example.com/hook', reason: 'failing', event_id: 4 }],
    ];
    for (const e of emits) await log.emit({ accountId: 'a', kind: 'live' }, ...e);
    const stored = await store.eventsAfter('a', 0, 10);
    expect(stored.map((s) => s.type)).toEqual(Object.keys(eventDataSchemas));
    for (const s of stored) {
      expect(s.data.at).toBe(iso(clock.now()));
      expect(eventDataSchemas[s.type as keyof typeof eventDataSchemas].parse(s.data)).toEqual(s.data);
    }
  });

  it("a test key's memory change is not carried, not even on its own channel; what its actions lead to is", async () => {
    const log = createEventsLog({ storeFor: () => store, clock: createManualClock() });
    const test = { accountId: 'a', kind: 'test' } as const;
    expect(await log.emit(test, 'memory', { key: 'topic:x', tier: 'pinned' })).toBeNull();
    expect(await store.eventBounds('a')).toEqual({ oldest: null, latest: 0 });
    expect(await log.emit(test, 'message', { text: 'simulated', cause: 'test' })).toMatchObject({ id: 1, type: 'message' });
    expect(await log.emit({ ...test, kind: 'live' }, 'memory', { key: 'topic:x', tier: 'pinned' })).toMatchObject({ id: 2 });
  });

  it('resumed after an id the log never reached (a restored backup): says the newest id, then goes on live from it', async () => {
    const log = createEventsLog({ storeFor: () => store, clock: createManualClock() });
    await emitN(log, 3);
    const sub = log.subscribe({ accountId: 'a', kind: 'live' }, 1_000, () => true);
    const seen: FeedItem[] = [];
    for await (const item of sub) {
      seen.push(item);
      if (item.kind === 'cursor') await emitN(log, 2);
      if (seen.length === 3) break;
    }
    sub.close();
    expect(seen[0]).toEqual({ kind: 'cursor', id: 3 });
    expect(ids(seen)).toEqual([4, 5]);
  });

  it('replays after an id, then continues live across concurrent emits, each id once', async () => {
    const log = createEventsLog({ storeFor: () => store, clock: createManualClock() });
    await emitN(log, 50);
    const sub = log.subscribe({ accountId: 'a', kind: 'live' }, 20, () => true);
    const seen: FeedItem[] = [];
    const reading = (async () => {
      for await (const item of sub) {
        seen.push(item);
        if (ids(seen).at(-1) === 100) break;
      }
    })();
    await emitN(log, 50); // emitted while the replay is still running
    await reading;
    sub.close();
    expect(ids(seen)).toEqual(Array.from({ length: 80 }, (_, i) => 21 + i));
  });

  it('ends a subscriber that stops reading at its high-water mark; emitters and other readers carry on', async () => {
    const log = createEventsLog({ storeFor: () => store, clock: createManualClock(), highWaterMark: 10 });
    const stalled = log.subscribe({ accountId: 'a', kind: 'live' }, undefined, () => true);
    const stalledIt = stalled[Symbol.asyncIterator]();
    await stalledIt.next(); // the cursor; then it never reads again
    const healthy = log.subscribe({ accountId: 'a', kind: 'live' }, undefined, () => true);
    const got: FeedItem[] = [];
    const reading = (async () => {
      for await (const item of healthy) {
        got.push(item);
        if (ids(got).length === 100) break;
      }
    })();
    await emitN(log, 100);
    await reading;
    healthy.close();
    expect(stalled.endReason).toBe('overflow');
    expect(log.listenerCount({ accountId: 'a', kind: 'live' })).toBe(0);
    expect(ids(got)).toHaveLength(100);
    // What it had queued is still delivered, then the iterator ends: the client reconnects
    // with the last id it saw and loses nothing.
    const rest: number[] = [];
    for (let r = await stalledIt.next(); !r.done; r = await stalledIt.next()) if (r.value.kind === 'event') rest.push(r.value.event.id);
    expect(rest).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  it('a queue that overflows during a multi-page replay skips no id: the replay reads on from the store', async () => {
    const log = createEventsLog({ storeFor: () => store, clock: createManualClock(), highWaterMark: 5 });
    await emitN(log, 1_200); // more than two replay pages
    const sub = log.subscribe({ accountId: 'a', kind: 'live' }, 0, () => true);
    const it = sub[Symbol.asyncIterator]();
    const got: number[] = [];
    const first = await it.next();
    if (!first.done && first.value.kind === 'event') got.push(first.value.event.id);
    await emitN(log, 20); // overflows the 5-event queue while the replay is on its first page
    for (let r = await it.next(); !r.done; r = await it.next()) {
      if (r.value.kind === 'event') got.push(r.value.event.id);
      if (got.at(-1) === 1_220) break;
    }
    await emitN(log, 3); // and it is live afterwards
    for (let r = await it.next(); !r.done; r = await it.next()) {
      if (r.value.kind === 'event') got.push(r.value.event.id);
      if (got.at(-1) === 1_223) break;
    }
    sub.close();
    expect(sub.endReason).toBe('closed');
    expect(got).toEqual(Array.from({ length: 1_223 }, (_, i) => i + 1));
  });

  it('a slow reader replaying while emits keep overflowing its queue sees every id once, in order', async () => {
    const log = createEventsLog({ storeFor: () => store, clock: createManualClock(), highWaterMark: 3 });
    await emitN(log, 600);
    const sub = log.subscribe({ accountId: 'a', kind: 'live' }, 0, () => true);
    const emitting = (async () => {
      for (let i = 0; i < 300; i++) {
        await log.emit({ accountId: 'a', kind: 'live' }, 'memory', { key: `topic:late${i}`, tier: 'fading' });
        if (i % 7 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    const got: number[] = [];
    for await (const item of sub) {
      if (item.kind === 'event') got.push(item.event.id);
      if (got.at(-1) === 900) break;
      if (got.length % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    await emitting;
    sub.close();
    expect(got).toEqual(Array.from({ length: 900 }, (_, i) => i + 1));
  });

  it('emitTogether appends what arrives while a batch is appended in one unit of work: each its own id, in call order, delivered in order', async () => {
    let units = 0;
    let inUnit = 0;
    // Appends counted where they are made: on a unit handed out, or on the store itself.
    const counted: EmbeddedStore = {
      ...store,
      async atomically(fn) {
        units++;
        return store.atomically((tx) =>
          fn({
            ...tx,
            appendEvent(accountId, event) {
              inUnit++;
              return tx.appendEvent(accountId, event);
            },
          }),
        );
      },
    };
    const log = createEventsLog({ storeFor: () => counted, clock: createManualClock() });
    const sub = log.subscribe({ accountId: 'a', kind: 'live' }, undefined, () => true);
    const got: number[] = [];
    const reading = (async () => {
      for await (const item of sub) {
        if (item.kind === 'event') got.push(item.event.id);
        if (got.length === 10) break;
      }
    })();
    await new Promise((r) => setImmediate(r));
    const emitted = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        log.emitTogether({ accountId: 'a', kind: 'live' }, 'memory', { key: `topic:t${i}`, tier: 'fading' }),
      ),
    );
    expect(emitted.map((e) => [e.id, e.data.key])).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1, `topic:t${i}`]));
    // However the first one's turn fell (alone, or with the rest), the others shared one unit.
    expect(units).toBe(1);
    expect(inUnit).toBeGreaterThanOrEqual(9);
    await reading;
    sub.close();
    expect(got).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  it('a prune that fails is reported and the log goes on: the next thousandth event prunes again', async () => {
    const fast = await createLowdbStore({ dataDir: path.join(dir, 'fast'), fsync: false });
    let prunes = 0;
    const failing: EmbeddedStore = {
      ...fast,
      async pruneEvents(...args) {
        if (++prunes === 1) throw new Error('the disk is away');
        return fast.pruneEvents(...args);
      },
    };
    const errors: unknown[] = [];
    const log = createEventsLog({
      storeFor: () => failing,
      clock: createManualClock(),
      retention: { maxEvents: 500, maxAgeMs: 3_600_000 },
      onError: (e) => errors.push(e),
    });
    try {
      // Had the failed prune floated, the test run would fail with an unhandled rejection.
      await emitN(log, 2_000);
      await expect.poll(() => prunes).toBe(2);
      expect(errors).toEqual([expect.objectContaining({ message: 'the disk is away' })]);
      // The second prune ran: the oldest kept is within the newest 500.
      await expect.poll(async () => (await fast.eventBounds('a')).oldest).toBe(1_501);
      expect(await log.emit({ accountId: 'a', kind: 'live' }, 'memory', { key: 'topic:after', tier: 'fading' })).toMatchObject({
        id: 2_001,
      });
    } finally {
      await fast.close();
    }
  });
});
