// The spend gate's cap on holds, over a real embedded store: an intent the policy would hold is
// refused (409, `held_per_account`) once the account has that many waiting, however many arrive
// at once; one answered makes room; executing intents and other accounts are not counted.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPolicy } from '@presence/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { intentRecord } from '../../testing/fixtures';
import { createManualClock } from '../clock/clock';
import { createLocalLocks } from '../concurrency/cluster-locks';
import { createKeystore } from '../keystore/keystore';
import { createLowdbStore, type LowdbStore } from '../store/lowdb/lowdb-store';
import { createSpendGate, type Decision } from './spend-gate';

const USD = 10n ** 18n;
let dir: string;
let store: LowdbStore;
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'presence-gate-'));
  store = await createLowdbStore({ dataDir: dir, keystore: createKeystore(randomBytes(32)) });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the cap on holds', () => {
  const clock = createManualClock(Date.parse('2026-07-10T12:00:00Z'));
  const gateWith = (maxHeld: number) => createSpendGate({ storeFor: () => store, clock, locks: createLocalLocks(), maxHeld });
  let n = 0;
  /** An intent worth `usd` of `accountId` through the gate; over 10 USD the default policy holds it. */
  const admit = (gate: ReturnType<typeof gateWith>, accountId: string, usd: bigint) =>
    gate.admit({
      caller: { accountId, kind: 'live' },
      gate: {
        policy: defaultPolicy,
        action: { action: 'wrap', tokens: ['ETH', 'WETH'], to: null, valueUsd: usd * USD },
        usdOf: (amount) => BigInt(amount.split(' ')[0] as string) * USD,
      },
      build: (decision: Decision) =>
        intentRecord(`in_${++n}`, clock.now(), {
          account_id: accountId,
          value_usd: (usd * USD).toString(),
          state: decision === 'hold' ? 'held' : 'executing',
          confirm_id: decision === 'hold' ? `cf_${n}` : null,
        }),
    });

  it('refuses a hold past the cap, counts holds arriving together, and has room again once one is answered', async () => {
    const gate = gateWith(3);
    // Four holds and two small actions at once (one batch or several): three holds pass.
    const outcomes = await Promise.allSettled([20n, 20n, 5n, 20n, 20n, 5n].map((usd) => admit(gate, 'a', usd)));
    const created = outcomes.flatMap((o) => (o.status === 'fulfilled' && 'created' in o.value ? [o.value.created] : []));
    expect(created.map((r) => r.state).sort()).toEqual(['executing', 'executing', 'held', 'held', 'held']);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ type: 'conflict', status: 409, extra: { limit: 'held_per_account' } });
    expect(String(refused[0].detail)).toContain('at most 3 actions waiting for approval');
    // An action under confirm_over still executes; another account has its own room.
    expect(await admit(gate, 'a', 5n)).toMatchObject({ created: { state: 'executing' } });
    expect(await admit(gate, 'b', 20n)).toMatchObject({ created: { state: 'held' } });
    await expect(admit(gate, 'a', 20n)).rejects.toMatchObject({ extra: { limit: 'held_per_account' } });
    // One denied: room for one more.
    const first = created.find((r) => r.state === 'held');
    await store.transitionIntent('a', first!.id, ['held'], 'denied');
    expect(await admit(gate, 'a', 20n)).toMatchObject({ created: { state: 'held' } });
    expect(await store.heldCount('a')).toBe(3);
  });
});
