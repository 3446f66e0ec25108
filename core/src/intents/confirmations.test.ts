// Confirmations on a real devnet, a temporary lowdb store and a driven clock: a hold is resolved
// once — approved (executed once, however many answers arrive), denied or expired — and each
// resolution is one `confirm` event; the same answer again is idempotent, the other one is
// confirm_resolved; past expires_at every answer is confirm_expired and nothing executes; the
// sweep expires what is due, once; approval re-runs the gate, and an outage before signing
// puts the hold back. Each test has its own account, so its wallet and events start empty.
import type { ConfirmResult, IntentResult, KeyKind, PolicyDocument } from '@presence/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetCore, OPEN_POLICY, startDevnetCore } from '../../testing/devnet-core-fixture';
import { createManualClock } from '../clock/clock';
import type { Resolution } from './confirmations';

const clock = createManualClock(Date.parse('2026-07-10T12:00:00Z'));
let t: DevnetCore;

beforeAll(async () => {
  t = await startDevnetCore(clock, 'confirmations');
});
afterEach(() => t.restore());
afterAll(async () => {
  await t?.close();
});

const HOLDING: Partial<PolicyDocument> = { confirm_over: '1 USD', confirm_timeout_s: 300 };
/** A held intent (about 6 USD) of `accountId`. */
async function hold(accountId: string, mode: KeyKind = 'live', text = 'wrap 0.002 ETH') {
  const r: IntentResult = await t.wallet.pipeline.submit({ caller: { accountId, kind: mode }, text, source: 'api' });
  if (r.status !== 'needs_confirm') throw new Error(`expected a hold, got ${JSON.stringify(r)}`);
  return r;
}
const answer = (accountId: string, confirmId: string, approve: boolean, mode: KeyKind = 'live') =>
  t.wallet.confirmations.answer({ accountId: accountId, kind: mode }, confirmId, approve);
const confirms = async (accountId: string, mode: KeyKind = 'live') =>
  (await t.events(accountId, mode, 'confirm')).map((e) => e.data.status);
const stateOf = async (accountId: string, intentId: string, mode: KeyKind = 'live') =>
  (await t.core.storeFor(mode).getIntent(accountId, intentId))?.state;
const executed = (r: ConfirmResult) => {
  if (r.status !== 'executed') throw new Error(`expected executed, got ${JSON.stringify(r)}`);
  return r;
};

describe('approve', () => {
  it('executes the hold once, with one confirm and one tx event; approving again answers the same', async () => {
    const a = await t.account('approve', HOLDING);
    const h = await hold(a.id);
    const mined = await t.mined(a.address);
    const resolutions: Resolution[] = [];
    const off = t.wallet.confirmations.onResolved((r) => {
      if (r.record.account_id === a.id) resolutions.push(r);
    });
    const r = executed(await answer(a.id, h.confirm_id, true));
    expect(r).toMatchObject({ confirm_id: h.confirm_id, tx: expect.stringMatching(/^0x/), block: expect.any(Number) });
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect(await stateOf(a.id, h.intent_id)).toBe('done');
    const [event] = await t.events(a.id, 'live', 'confirm');
    expect(event?.data).toMatchObject({ confirm_id: h.confirm_id, intent_id: h.intent_id, status: 'executed', tx: r.tx, block: r.block });
    expect((await t.events(a.id, 'live', 'tx')).map((e) => e.data.hash)).toEqual([r.tx]);
    expect(await answer(a.id, h.confirm_id, true)).toEqual(r);
    expect(await confirms(a.id)).toEqual(['executed']);
    await expect(answer(a.id, h.confirm_id, false)).rejects.toMatchObject({ type: 'confirm_resolved' });
    off();
    expect(resolutions.map((x) => [x.status, x.caller.kind, x.tx])).toEqual([['executed', 'live', r.tx]]);
    expect(await t.mined(a.address)).toBe(mined + 1);
  });

  it('answered twice at the same moment executes once and both answers tell the same transaction', async () => {
    const a = await t.account('together', HOLDING);
    const h = await hold(a.id);
    const mined = await t.mined(a.address);
    const [one, two] = await Promise.all([answer(a.id, h.confirm_id, true), answer(a.id, h.confirm_id, true)]);
    expect(executed(one).tx).toBe(executed(two as ConfirmResult).tx);
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect(await confirms(a.id)).toEqual(['executed']);
  });

  it('re-plans at the current block and re-runs the gate: a cap tightened since blocks it, and it stays held', async () => {
    const a = await t.account('regate', HOLDING);
    const h = await hold(a.id);
    const quoted = (await t.core.store.getIntent(a.id, h.intent_id))?.quote_block as number;
    await t.core.policies.put({ accountId: a.id, kind: 'live' }, { ...OPEN_POLICY, ...HOLDING, per_tx_cap: '2 USD' });
    await expect(answer(a.id, h.confirm_id, true)).rejects.toMatchObject({ type: 'policy_block', extra: { rule: 'per_tx_cap' } });
    expect(await stateOf(a.id, h.intent_id)).toBe('held');
    expect(await confirms(a.id)).toEqual([]);
    await t.devnet.fund('0x000000000000000000000000000000000000c0de'); // a block passes
    await t.core.policies.put({ accountId: a.id, kind: 'live' }, { ...OPEN_POLICY, ...HOLDING });
    executed(await answer(a.id, h.confirm_id, true));
    expect((await t.core.store.getIntent(a.id, h.intent_id))?.quote_block).toBeGreaterThan(quoted);
  });

  it('of two holds at the same moment cannot both squeeze under the daily cap', async () => {
    const a = await t.account('twoholds', { ...HOLDING, daily_cap: '10 USD' });
    const [h1, h2] = [await hold(a.id), await hold(a.id)];
    const results = await Promise.allSettled([answer(a.id, h1.confirm_id, true), answer(a.id, h2.confirm_id, true)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({
      extra: { rule: 'daily_cap' },
    });
    expect([await stateOf(a.id, h1.intent_id), await stateOf(a.id, h2.intent_id)].sort()).toEqual(['done', 'held']);
  });

  it('cut off by an outage before signing puts the hold back; approving again executes it once', async () => {
    const a = await t.account('outage', HOLDING);
    const h = await hold(a.id);
    const mined = await t.mined(a.address);
    t.failNth('prepareTransaction');
    await expect(answer(a.id, h.confirm_id, true)).rejects.toMatchObject({ type: 'chain_unavailable' });
    expect(await stateOf(a.id, h.intent_id)).toBe('held');
    expect(await t.mined(a.address)).toBe(mined);
    expect(await confirms(a.id)).toEqual([]);
    executed(await answer(a.id, h.confirm_id, true));
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect(await confirms(a.id)).toEqual(['executed']);
  });
});

describe('deny', () => {
  it('drops the hold with one confirm event; denying again answers the same; approving after is confirm_resolved', async () => {
    const a = await t.account('deny', HOLDING);
    const h = await hold(a.id);
    const mined = await t.mined(a.address);
    expect(await answer(a.id, h.confirm_id, false)).toEqual({ confirm_id: h.confirm_id, status: 'denied' });
    expect(await answer(a.id, h.confirm_id, false)).toEqual({ confirm_id: h.confirm_id, status: 'denied' });
    await expect(answer(a.id, h.confirm_id, true)).rejects.toMatchObject({ type: 'confirm_resolved' });
    expect(await stateOf(a.id, h.intent_id)).toBe('denied');
    expect(await confirms(a.id)).toEqual(['denied']);
    expect(await t.mined(a.address)).toBe(mined);
  });
});

describe('expiry', () => {
  it('a hold answered one millisecond before its deadline executes', async () => {
    const a = await t.account('justintime', HOLDING);
    const h = await hold(a.id);
    clock.set(Date.parse(h.expires_at) - 1);
    executed(await answer(a.id, h.confirm_id, true));
  });

  it('at its deadline every answer is confirm_expired, with one expired event and nothing sent', async () => {
    const a = await t.account('expired', HOLDING);
    const h = await hold(a.id);
    const mined = await t.mined(a.address);
    clock.set(Date.parse(h.expires_at));
    await expect(answer(a.id, h.confirm_id, true)).rejects.toMatchObject({ type: 'confirm_expired', status: 409 });
    await expect(answer(a.id, h.confirm_id, false)).rejects.toMatchObject({ type: 'confirm_expired' });
    await expect(answer(a.id, h.confirm_id, true)).rejects.toMatchObject({ type: 'confirm_expired' });
    expect(await stateOf(a.id, h.intent_id)).toBe('expired');
    expect(await confirms(a.id)).toEqual(['expired']);
    expect(await t.mined(a.address)).toBe(mined);
  });

  it('the sweep expires only what is due, each once; a due hold lists as expired even before it', async () => {
    const a = await t.account('sweep', HOLDING);
    const early = await hold(a.id);
    clock.advance(60_000);
    const late = await hold(a.id);
    clock.set(Date.parse(early.expires_at));
    const listed = await t.wallet.confirmations.list({ accountId: a.id, kind: 'live' });
    expect(listed.map((c) => [c.confirm_id, c.status])).toEqual([
      [early.confirm_id, 'expired'],
      [late.confirm_id, 'held'],
    ]);
    // Each listed hold says what it is worth, as its intent answer did ("22.00 USD").
    expect(listed.map((c) => c.value_usd)).toEqual([early.value_usd, late.value_usd]);
    expect(listed[0]?.value_usd).toMatch(/^\d+\.\d\d USD$/);
    // Asked for by status (the due one among the expired before the sweep), one by id, or the newest only.
    const caller = { accountId: a.id, kind: 'live' } as const;
    const ids = async (q: Parameters<typeof t.wallet.confirmations.list>[1]) =>
      (await t.wallet.confirmations.list(caller, q)).map((c) => c.confirm_id);
    expect(await ids({ status: 'expired' })).toEqual([early.confirm_id]);
    expect(await ids({ status: 'executed' })).toEqual([]);
    expect(await ids({ limit: 1 })).toEqual([late.confirm_id]);
    expect(await t.wallet.confirmations.get(caller, early.confirm_id)).toEqual(listed[0]);
    await expect(t.wallet.confirmations.get(caller, 'cf_0000000000000000')).rejects.toMatchObject({ type: 'not_found' });
    expect(await stateOf(a.id, early.intent_id)).toBe('held');
    // The sweep is across accounts (holds other tests left may be due too): this account's due
    // hold is expired by it, the later one is not, and a second sweep finds nothing left.
    expect(await t.wallet.confirmations.sweep()).toBeGreaterThanOrEqual(1);
    expect(await stateOf(a.id, early.intent_id)).toBe('expired');
    expect(await stateOf(a.id, late.intent_id)).toBe('held');
    expect(await t.wallet.confirmations.sweep()).toBe(0);
    expect((await t.events(a.id, 'live', 'confirm')).map((e) => [e.data.confirm_id, e.data.status])).toEqual([
      [early.confirm_id, 'expired'],
    ]);
    expect((await t.wallet.confirmations.list({ accountId: a.id, kind: 'live' }, { status: 'held' })).map((c) => c.confirm_id)).toEqual([
      late.confirm_id,
    ]);
    await expect(answer(a.id, early.confirm_id, true)).rejects.toMatchObject({ type: 'confirm_expired' });
    executed(await answer(a.id, late.confirm_id, true));
  });
});

describe('who may answer', () => {
  it('an unknown confirm id, or another account’s, is not_found', async () => {
    const a = await t.account('mine', HOLDING);
    const b = await t.account('theirs', HOLDING);
    const h = await hold(b.id);
    await expect(answer(a.id, 'cf_nope', true)).rejects.toMatchObject({ type: 'not_found' });
    await expect(answer(a.id, h.confirm_id, true)).rejects.toMatchObject({ type: 'not_found' });
    expect(await stateOf(b.id, h.intent_id)).toBe('held');
  });

  it('a test key’s hold lives in the overlay: a live answer cannot find it, its approval is simulated', async () => {
    const a = await t.account('testhold', HOLDING);
    const h = await hold(a.id, 'test');
    const mined = await t.mined(a.address);
    await expect(answer(a.id, h.confirm_id, true, 'live')).rejects.toMatchObject({ type: 'not_found' });
    const r = executed(await answer(a.id, h.confirm_id, true, 'test'));
    expect(r.simulated).toBe(true);
    expect(await t.mined(a.address)).toBe(mined);
    expect(await confirms(a.id, 'test')).toEqual(['executed']);
    expect(await t.events(a.id, 'live')).toEqual([]);
  });
});
