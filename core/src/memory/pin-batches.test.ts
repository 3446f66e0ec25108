// Pins of one account that arrive together, on the real lowdb store through core: each is
// decided in arrival order on what the ones before it left, one refused (memory full) refuses
// only itself, every pin that changed something is announced once, in order, and a pin that
// changes nothing writes nothing. (On PostgreSQL the same batches commit once:
// test/src/postgres-server.test.ts.)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { type Core, createCore } from '../create-core';
import type { PresenceError } from '../errors/presence-error';
import { accountCaller } from '../keys/caller';
import { createKeystore } from '../keystore/keystore';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { EmbeddedStore } from '../store/store-port';
import { withOps } from '../store/with-ops';

const clock = createManualClock(Date.parse('2026-05-01T08:00:00Z'));
const caller = accountCaller('acct');
let dir: string;
let store: EmbeddedStore;
let core: Core;
/** Memory changes that reached the store: a batch is one. */
let changes = 0;
/** Plain reads of named entries (the path of a pin that likely changes nothing). */
let peeks = 0;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'pin-batches-'));
  const keystore = createKeystore(randomBytes(32));
  store = await createLowdbStore({ dataDir: dir, fsync: false, keystore });
  changes = 0;
  peeks = 0;
  // Counted in the pins' units of work too (where a pin's change is made).
  const counted = withOps(store, (ops) => ({
    changeMemory: (...args) => {
      changes++;
      return ops.changeMemory(...args);
    },
    peekMemory: (...args) => {
      peeks++;
      return ops.peekMemory(...args);
    },
  }));
  core = createCore({ store: counted, clock, keystore, rateLimit: { limit: 1_000, windowMs: 1_000 }, accountLimits: { memory: 3 } });
  await core.accounts.create('acct');
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const settled = (ps: Promise<unknown>[]) =>
  Promise.allSettled(ps).then((rs) => rs.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as PresenceError).type)));
const memoryEvents = async () =>
  (await store.eventsAfter('acct', 0, 100)).filter((e) => e.type === 'memory').map((e) => (e.data as { key: string }).key);

describe('pins of one account arriving together', () => {
  it('are decided in arrival order: the same key twice keeps the later note, and a full memory refuses only the pin past it', async () => {
    await core.memory.pin(caller, 'topic:a', 'first');
    changes = 0;
    const answers = await settled([
      core.memory.pin(caller, 'topic:b', 'one'),
      core.memory.pin(caller, 'topic:b', 'two'),
      core.memory.pin(caller, 'topic:c', 'three'),
      core.memory.pin(caller, 'topic:d', 'past the cap'),
      core.memory.pin(caller, 'topic:a', 'first'),
    ]);
    expect(answers).toEqual([
      { key: 'topic:b', tier: 'pinned', note: 'one', changed: true },
      { key: 'topic:b', tier: 'pinned', note: 'two', changed: true },
      { key: 'topic:c', tier: 'pinned', note: 'three', changed: true },
      'conflict',
      { key: 'topic:a', tier: 'pinned', note: 'first', changed: false },
    ]);
    // All five arrived before the first was under way: one change.
    expect(changes).toBe(1);
    const listing = await core.memory.list(caller);
    expect(listing.pinned.map((e) => [e.key, e.note])).toEqual([
      ['topic:a', 'first'],
      ['topic:b', 'two'],
      ['topic:c', 'three'],
    ]);
    // One event per pin that changed something, in arrival order; none for the refused or the repeated.
    expect(await memoryEvents()).toEqual(['topic:a', 'topic:b', 'topic:b', 'topic:c']);
  });

  it('of different accounts are batched apart: each account its own change', async () => {
    await core.accounts.create('other');
    const other = accountCaller('other');
    changes = 0;
    const answers = await settled([core.memory.pin(caller, 'topic:x', 'mine'), core.memory.pin(other, 'topic:x', 'theirs')]);
    expect(answers).toEqual([
      { key: 'topic:x', tier: 'pinned', note: 'mine', changed: true },
      { key: 'topic:x', tier: 'pinned', note: 'theirs', changed: true },
    ]);
    expect(changes).toBe(2);
    expect((await core.memory.list(other)).pinned.map((e) => e.note)).toEqual(['theirs']);
  });

  it('bringing again the note last answered are decided on one read and write nothing; a note changed meanwhile elsewhere is written back', async () => {
    await core.memory.pin(caller, 'topic:a', 'first');
    changes = 0;
    peeks = 0;
    // The same note again (and a pin without a note) changes nothing: one read, no change.
    expect(await settled([core.memory.pin(caller, 'topic:a', 'first'), core.memory.pin(caller, 'topic:a', undefined)])).toEqual([
      { key: 'topic:a', tier: 'pinned', note: 'first', changed: false },
      { key: 'topic:a', tier: 'pinned', note: 'first', changed: false },
    ]);
    expect([peeks, changes]).toEqual([1, 0]);
    // Another server (straight through the store) pins a new note; this server's guess is now
    // wrong: the read sees the change, and the pin goes on to write the note back.
    await store.changeMemory('acct', ['topic:a'], (current) => {
      const entry = current.found.get('topic:a');
      if (!entry) throw new Error('topic:a is stored');
      return { put: [{ ...entry, note: 'elsewhere' }], result: null };
    });
    expect(await core.memory.pin(caller, 'topic:a', 'first')).toEqual({ key: 'topic:a', tier: 'pinned', note: 'first', changed: true });
    expect([peeks, changes]).toEqual([2, 1]);
    expect((await core.memory.list(caller)).pinned.map((e) => e.note)).toEqual(['first']);
    // A new note is never guessed a repeat: straight to the change, no read first.
    await core.memory.pin(caller, 'topic:a', 'second');
    expect([peeks, changes]).toEqual([2, 2]);
    expect(await memoryEvents()).toEqual(['topic:a', 'topic:a', 'topic:a']);
  });
});
