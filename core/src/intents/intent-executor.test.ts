// The intent executor on a real devnet and a temporary lowdb store, records written straight
// into the store: every transaction is stored signed before it is broadcast; drives of one
// intent run one at a time, so however many finish it, it lands once and its outcome is
// published once; the chain refusing a step fails the intent, an outage before signing
// releases it (a new intent frees its key, an approved hold is held again), an outage after
// signing leaves it to the next drive, which re-sends the same bytes. Recovery and the upkeep
// (the wallet domain) finish what an outage left behind. Outages are injected into the real
// port for one call; "once" is counted on the devnet.
import type { Address } from 'viem';
import { parseEther } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetCore, startDevnetCore } from '../../testing/devnet-core-fixture';
import { intentRecord } from '../../testing/fixtures';
import type { TxRequest } from '../chain/chain-port';
import { createManualClock } from '../clock/clock';
import type { IntentRecord } from '../store/documents';
import { createNonceAllocator } from '../wallet/signers/nonce-allocator';
import { createIntentExecutor, type IntentExecutor, type Outcome } from './intent-executor';

const clock = createManualClock(Date.parse('2026-08-20T06:00:00Z'));
let t: DevnetCore;
let executor: IntentExecutor;
const outcomes: Outcome[] = [];

beforeAll(async () => {
  t = await startDevnetCore(clock, 'executor');
  executor = createIntentExecutor({ chain: t.chain, wallets: t.wallet.wallets, nonces: createNonceAllocator(t.chain), clock });
  executor.onOutcome((o) => {
    outcomes.push(o);
  });
});
afterEach(() => {
  t.restore();
  outcomes.length = 0;
});
afterAll(async () => {
  await t?.close();
});

const step = (tx: TxRequest, label: string) => ({ to: tx.to, data: tx.data, value: tx.value.toString(), label });
const wrap = (eth: string) => step(t.chain.buildWrap(parseEther(eth)), `wrap ${eth}`);
let n = 0;
/** Stores an intent of `accountId` in `executing` (or as patched) with `steps`, as the pipeline would. */
async function stored(accountId: string, steps: IntentRecord['steps'], patch: Partial<IntentRecord> = {}) {
  const r = intentRecord(`in_exec${++n}`, clock.now(), { account_id: accountId, steps, quote_block: 1, ...patch });
  await t.store.createIntent(r);
  return r;
}
const get = async (r: IntentRecord) => (await t.store.getIntent(r.account_id, r.id)) as IntentRecord;
const statuses = () => outcomes.map((o) => `${o.status} ${o.record.id}`);

describe('drive', () => {
  it('stores each transaction signed before it is broadcast, then settles the record done on its receipt', async () => {
    const a = await t.account('settle');
    const r = await stored(a.id, [wrap('0.001')]);
    const mined = await t.mined(a.address);
    const realSend = t.chain.sendRaw;
    const atSend: IntentRecord[] = [];
    t.chain.sendRaw = async (raw) => {
      atSend.push(await get(r));
      return realSend(raw);
    };
    try {
      const done = await executor.drive(t.store, r);
      expect(atSend.map((x) => [x.state, x.txs.length])).toEqual([['signed', 1]]);
      const record = await get(r);
      expect(record).toMatchObject({ state: 'done', block: done.block, executed_at: clock.now() });
      expect(record.txs).toEqual([{ hash: done.hash, raw: atSend[0]?.txs[0]?.raw, nonce: mined, label: 'wrap 0.001' }]);
      expect(await t.mined(a.address)).toBe(mined + 1);
      expect(statuses()).toEqual([`done ${r.id}`]);
    } finally {
      t.chain.sendRaw = realSend;
    }
  });

  it('sends a plan’s steps at consecutive nonces and settles on the last receipt', async () => {
    const a = await t.account('twostep');
    const mined = await t.mined(a.address);
    const r = await stored(a.id, [wrap('0.001'), wrap('0.002')]);
    const done = await executor.drive(t.store, r);
    const record = await get(r);
    expect(record.txs.map((x) => [x.label, x.nonce])).toEqual([
      ['wrap 0.001', mined],
      ['wrap 0.002', mined + 1],
    ]);
    expect(done.hash).toBe(record.txs[1]?.hash);
    expect(Number((await t.chain.waitForReceipt(done.hash)).block)).toBe(done.block);
  });

  it('a drive handed a record as just stored (fresh) that another drive has finished meanwhile sends nothing more', async () => {
    const a = await t.account('fresh');
    const r = await stored(a.id, [wrap('0.001')]);
    const mined = await t.mined(a.address);
    // Both take the record as stored before either drove it; the second comes after the first is done.
    const first = await executor.drive(t.store, r, { fresh: true });
    const second = await executor.drive(t.store, r, { fresh: true });
    expect(second.hash).toBe(first.hash);
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect((await get(r)).txs).toHaveLength(1);
    expect(statuses()).toEqual([`done ${r.id}`]);
  });

  it('run by several at once signs once; every one answers the same and the outcome is published once', async () => {
    const a = await t.account('together');
    const r = await stored(a.id, [wrap('0.001')]);
    const mined = await t.mined(a.address);
    const all = await Promise.all([executor.drive(t.store, r), executor.drive(t.store, r), executor.drive(t.store, r)]);
    expect(new Set(all.map((x) => x.hash)).size).toBe(1);
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect(statuses()).toEqual([`done ${r.id}`]);
    expect(executor.isDriving(r.id)).toBe(false);
    // Once done, a drive answers the record as it is and publishes nothing.
    expect((await executor.drive(t.store, r)).hash).toBe(all[0]?.hash);
    expect(statuses()).toEqual([`done ${r.id}`]);
  });

  it('refuses a record that is gone or ended otherwise, touching nothing', async () => {
    const a = await t.account('ended');
    const heldRecord = await stored(a.id, [wrap('0.001')], { state: 'held', confirm_id: 'cf_x', expires_at: clock.now() + 1 });
    await expect(executor.drive(t.store, heldRecord)).rejects.toMatchObject({ type: 'conflict', message: /ended held/ });
    const ghost = intentRecord('in_ghost', clock.now(), { account_id: a.id });
    await expect(executor.drive(t.store, ghost)).rejects.toMatchObject({ type: 'conflict', message: /is gone/ });
    expect((await get(heldRecord)).state).toBe('held');
    expect(outcomes).toEqual([]);
  });
});

describe('failures', () => {
  it('a step the chain reverts fails the intent, keeps its key, sends nothing and publishes failed once', async () => {
    const a = await t.account('revert');
    const mined = await t.mined(a.address);
    const r = await stored(a.id, [step(t.chain.buildUnwrap(parseEther('1000000')), 'unwrap')], { idempotency_key: 'rv-1' });
    await expect(executor.drive(t.store, r)).rejects.toMatchObject({ type: 'conflict', message: /the action failed on chain/ });
    const record = await get(r);
    expect(record).toMatchObject({ state: 'failed', idempotency_key: 'rv-1', txs: [] });
    expect(record.error).toMatch(/revert/);
    expect(await t.mined(a.address)).toBe(mined);
    expect(statuses()).toEqual([`failed ${r.id}`]);
    await expect(executor.drive(t.store, r)).rejects.toMatchObject({ message: /ended failed/ });
    expect(statuses()).toEqual([`failed ${r.id}`]);
  });

  it('an outage before signing releases: a new intent fails and frees its key, an approved hold is held again', async () => {
    const a = await t.account('release');
    const fresh = await stored(a.id, [wrap('0.001')], { idempotency_key: 'rel-1' });
    const approved = await stored(a.id, [wrap('0.001')], { confirm_id: 'cf_rel', expires_at: clock.now() + 60_000 });
    const mined = await t.mined(a.address);
    t.failNth('prepareTransaction');
    await expect(executor.drive(t.store, fresh)).rejects.toMatchObject({ type: 'chain_unavailable' });
    t.failNth('prepareTransaction');
    await expect(executor.drive(t.store, approved)).rejects.toMatchObject({ type: 'chain_unavailable' });
    expect(await get(fresh)).toMatchObject({ state: 'failed', idempotency_key: null, txs: [] });
    expect(await t.store.findIntentByIdempotencyKey(a.id, 'rel-1')).toBeNull();
    expect(await get(approved)).toMatchObject({ state: 'held', confirm_id: 'cf_rel', txs: [] });
    expect(await t.mined(a.address)).toBe(mined);
    // Nothing final happened on chain: no outcome to announce.
    expect(outcomes).toEqual([]);
  });

  it('an outage after signing leaves the record signed; the next drive re-sends the same bytes and lands once', async () => {
    const a = await t.account('resend');
    const mined = await t.mined(a.address);
    const r = await stored(a.id, [wrap('0.001'), wrap('0.002')]);
    t.failNth('sendRaw', 2);
    await expect(executor.drive(t.store, r)).rejects.toMatchObject({ type: 'chain_unavailable' });
    const signed = await get(r);
    expect(signed.state).toBe('signed');
    expect(signed.txs).toHaveLength(2);
    expect(await t.chain.getTransaction(signed.txs[0]?.hash as `0x${string}`)).not.toBeNull();
    expect(await t.chain.getTransaction(signed.txs[1]?.hash as `0x${string}`)).toBeNull();
    expect(outcomes).toEqual([]);
    const done = await executor.drive(t.store, r);
    expect(done.hash).toBe(signed.txs[1]?.hash);
    expect((await get(r)).txs).toEqual(signed.txs);
    expect(await t.mined(a.address)).toBe(mined + 2);
    expect(statuses()).toEqual([`done ${r.id}`]);
  });

  it('a stored transaction whose nonce went to another can never land: the intent fails plainly', async () => {
    const a = await t.account('overtaken');
    const lost = await stored(a.id, [wrap('0.001')]);
    const mined = await t.mined(a.address);
    t.failNth('sendRaw');
    await expect(executor.drive(t.store, lost)).rejects.toMatchObject({ type: 'chain_unavailable' });
    const later = await stored(a.id, [wrap('0.002')]);
    await executor.drive(t.store, later);
    expect((await get(later)).txs[0]?.nonce).toBe((await get(lost)).txs[0]?.nonce);
    await expect(executor.drive(t.store, lost)).rejects.toMatchObject({ message: /can no longer be sent/ });
    expect((await get(lost)).state).toBe('failed');
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect(statuses()).toEqual([`done ${later.id}`, `failed ${lost.id}`]);
  });
});

describe('what an outage left behind (wallet domain)', () => {
  it('the upkeep resumes a signed intent nobody retried, once it has been idle a minute', async () => {
    const a = await t.account('stranded');
    const mined = await t.mined(a.address);
    t.failNth('sendRaw');
    await expect(
      t.wallet.pipeline.submit({ caller: { accountId: a.id, kind: 'live' }, text: 'wrap 0.001 ETH', source: 'api' }),
    ).rejects.toMatchObject({
      type: 'chain_unavailable',
    });
    t.restore();
    const [r] = await t.store.listIntents(a.id);
    expect(r?.state).toBe('signed');
    expect(await t.wallet.resumeStranded()).toBe(0); // too recent: it may still be someone's
    clock.advance(60_001);
    expect(await t.wallet.resumeStranded()).toBeGreaterThanOrEqual(1);
    await expect.poll(async () => (await get(r as IntentRecord)).state, { timeout: 10_000 }).toBe('done');
    expect(await t.mined(a.address)).toBe(mined + 1);
    // The outcome is published just after the record settles: wait for it, then for nothing more.
    await expect.poll(async () => (await t.events(a.id, 'live', 'tx')).map((e) => e.data.hash)).toEqual([r?.txs[0]?.hash]);
  });

  it('the upkeep leaves alone an intent whose drive is still under way, however long it has been', async () => {
    const a = await t.account('slow');
    const mined = await t.mined(a.address);
    const realSend = t.chain.sendRaw;
    let entered!: () => void;
    let release!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const gate = new Promise<void>((r) => (release = r));
    t.chain.sendRaw = async (raw) => {
      entered();
      await gate;
      return realSend(raw);
    };
    try {
      const submitted = t.wallet.pipeline.submit({ caller: { accountId: a.id, kind: 'live' }, text: 'wrap 0.001 ETH', source: 'api' });
      await inside;
      clock.advance(120_000);
      expect(await t.wallet.resumeStranded()).toBe(0);
      release();
      expect((await submitted).status).toBe('done');
    } finally {
      t.chain.sendRaw = realSend;
    }
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect(await t.events(a.id, 'live', 'tx')).toHaveLength(1);
  });

  it('recovery settles what was signed and fails or re-holds what was cut off before signing', async () => {
    const a = await t.account('recover');
    const mined = await t.mined(a.address);
    t.failNth('sendRaw');
    await expect(executor.drive(t.store, await stored(a.id, [wrap('0.001')]))).rejects.toMatchObject({ type: 'chain_unavailable' });
    const cutNew = await stored(a.id, [wrap('0.001')], { idempotency_key: 'rec-1' });
    const cutHold = await stored(a.id, [wrap('0.001')], { confirm_id: 'cf_rec', expires_at: clock.now() + 60_000 });
    const before = await t.store.intentsInStates(['executing', 'signed']);
    const { settled, failed } = await t.wallet.recover();
    // Other tests' accounts have nothing left in flight: these three are all there is.
    expect(before.filter((x) => x.account_id !== a.id)).toEqual([]);
    expect([settled, failed]).toEqual([1, 2]);
    expect((await t.store.listIntents(a.id)).map((x) => x.state)).toEqual(['done', 'failed', 'held']);
    expect(await get(cutNew)).toMatchObject({ idempotency_key: null });
    expect(await get(cutHold)).toMatchObject({ confirm_id: 'cf_rec' });
    expect(await t.mined(a.address)).toBe(mined + 1);
  });
});

it('simulates a test key’s plan: a hash at the nonce it would get, nothing sent', async () => {
  const a = await t.account('simulate');
  const mined = await t.mined(a.address);
  const steps = [wrap('0.001'), wrap('0.002')];
  const { hash } = await executor.simulate(a.id, steps);
  expect(await t.chain.getTransaction(hash)).toBeNull();
  expect(await t.mined(a.address)).toBe(mined);
  // It is the final step signed at the nonce after the first's: what a live drive would sign.
  const address = (await t.wallet.wallets.address(a.id)) as Address;
  const { key } = await t.wallet.wallets.signer(a.id);
  const prepared = await t.chain.prepareTransaction(address, t.chain.buildWrap(parseEther('0.002')));
  expect((await t.chain.signPrepared(key, prepared, mined + 1)).hash).toBe(hash);
});
