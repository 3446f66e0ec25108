// The presence view on the embedded store, where it is kept in memory too (account-view-cache.ts
// with no notices): every change this server makes is seen by the next read, at once, and a
// kept view is answered without a promise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createCore } from '../create-core';
import type { Principal } from '../keys/key-service';
import { DAY_MS } from '../memory/memory-rules';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { EmbeddedStore } from '../store/store-port';

describe('presence view on lowdb', () => {
  let dir: string;
  let store: EmbeddedStore;
  const clock = createManualClock(Date.parse('2026-03-01T00:00:00Z'));
  let core: ReturnType<typeof createCore>;
  let p: Principal;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'presence-'));
    store = await createLowdbStore({ dataDir: dir });
    core = createCore({ store, clock, rateLimit: { limit: 10, windowMs: 1000 } });
    const { admin } = await core.accounts.create('acct');
    p = await core.keys.authenticate(admin.secret);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const counts = async () => (await core.presence.me(p)).memory;

  it('is answered at once once kept, and follows every change made here at once', async () => {
    expect(core.presence.me(p)).toBeInstanceOf(Promise); // read, then kept
    const first = await core.presence.me(p);
    expect(core.presence.me(p)).toBe(first); // kept: no promise
    await core.memory.pin(p, 'topic:a');
    expect(await counts()).toEqual({ pinned: 1, fading: 0 });
    await core.memory.touch(p, ['token:WETH']);
    expect(await counts()).toEqual({ pinned: 1, fading: 1 });
    await core.memory.forget(p, 'topic:a');
    expect(await counts()).toEqual({ pinned: 0, fading: 1 });
    clock.advance(30 * DAY_MS);
    await core.compactor.runOnce();
    expect(await counts()).toEqual({ pinned: 0, fading: 0 });
    const patched = await core.presence.patch(p, { name: 'Renamed', preferences: { tone: 'short' } });
    expect(patched).toMatchObject({ name: 'Renamed', preferences: { tone: 'short' } });
    expect(await core.presence.me(p)).toEqual(patched);
  });
});
