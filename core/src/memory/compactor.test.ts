// The compactor's rules with a driven clock against the real lowdb store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { createCore } from '../create-core';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { EmbeddedStore } from '../store/store-port';
import { DAY_MS } from './memory-rules';

describe('memory compactor', () => {
  let dir: string;
  let store: EmbeddedStore;
  const clock = createManualClock(Date.parse('2026-03-01T00:00:00Z'));
  let core: ReturnType<typeof createCore>;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'compactor-'));
    store = await createLowdbStore({ dataDir: dir });
    core = createCore({ store, clock, rateLimit: { limit: 10, windowMs: 1000 } });
    await core.accounts.create('acct');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const events = async () => (await store.eventsAfter('acct', 0, 100)).map((e) => e.data);

  it('drops a fading key after 30 untouched days and says so', async () => {
    await core.memory.touch({ accountId: 'acct', kind: 'live' }, ['token:WETH']);
    clock.advance(29 * DAY_MS);
    expect(await core.compactor.runOnce()).toEqual([]);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).fading[0]?.days_left).toBe(1);
    clock.advance(DAY_MS);
    expect(await core.compactor.runOnce()).toEqual([{ key: 'token:WETH', tier: 'dropped' }]);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).fading).toEqual([]);
    expect(await events()).toEqual([expect.objectContaining({ key: 'token:WETH', tier: 'dropped' })]);
  });

  it('decays weight with time and raises it with touches', async () => {
    await core.memory.touch({ accountId: 'acct', kind: 'live' }, ['pair:WETH-USDC']);
    const w0 = (await core.memory.list({ accountId: 'acct', kind: 'live' })).fading[0]?.weight as number;
    clock.advance(7 * DAY_MS);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).fading[0]?.weight).toBeCloseTo(w0 / 2, 3);
    await core.memory.touch({ accountId: 'acct', kind: 'live' }, ['pair:WETH-USDC']);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).fading[0]?.weight).toBeCloseTo(w0 / 2 + 0.25, 3);
  });

  it('promotes an often-touched key to pinned, and demotes its own pins after 30 idle days', async () => {
    for (let i = 0; i < 5; i++) {
      await core.memory.touch({ accountId: 'acct', kind: 'live' }, ['token:DAI']);
      clock.advance(3600_000);
    }
    expect(await core.compactor.runOnce()).toEqual([{ key: 'token:DAI', tier: 'pinned' }]);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).pinned.map((p) => p.key)).toEqual(['token:DAI']);
    clock.advance(30 * DAY_MS);
    expect(await core.compactor.runOnce()).toEqual([{ key: 'token:DAI', tier: 'fading' }]);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).fading[0]?.days_left).toBe(7);
  });

  it('never drops or demotes a user pin', async () => {
    await core.memory.pin({ accountId: 'acct', kind: 'live' }, 'pref:stable-DAI', 'prefers DAI');
    clock.advance(400 * DAY_MS);
    expect(await core.compactor.runOnce()).toEqual([]);
    expect((await core.memory.list({ accountId: 'acct', kind: 'live' })).pinned).toEqual([
      { key: 'pref:stable-DAI', note: 'prefers DAI', tier: 'pinned', weight: 0, days_left: null },
    ]);
  });
});
