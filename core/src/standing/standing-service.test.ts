// The standing service on a real devnet, a temporary lowdb store and a driven clock: creating
// checks the scopes and tokens of what it will do; a daily trigger fires at its time once a day;
// a price trigger fires once per crossing (already true at creation: on the next beat), stays
// quiet while the price stays past the line and re-arms only past the 1% margin (prices moved
// by real trades on the devnet); an acting one acts once through the pipeline, only while its
// creator's key still may; a fire cut short is completed once; a cancelled or test-key intent
// never fires. Every test cancels what it made, since a beat evaluates every account.

import { DEVNET_MNEMONIC } from '@presence/devnet';
import type { Scope } from '@presence/protocol';
import { scopes as allScopes } from '@presence/protocol';
import { type Hex, parseEther, toHex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetCore, startDevnetCore } from '../../testing/devnet-core-fixture';
import type { TxRequest } from '../chain/chain-port';
import { createManualClock } from '../clock/clock';
import type { StandingRecord } from '../store/documents';
import { parseStanding } from './standing-parser';
import { fireIntentKey, type StandingOwner } from './standing-service';

const DAY_MS = 86_400_000;
const clock = createManualClock(Date.parse('2026-06-01T08:59:00Z'));
let t: DevnetCore;

beforeAll(async () => {
  t = await startDevnetCore(clock, 'standing');
});
afterEach(async () => {
  t.restore();
  await t.core.standing.drain();
  const all = await t.store.dueStanding({ now: Number.MAX_SAFE_INTEGER, pricesMoved: true, createdSince: 0 });
  for (const r of all) if (r.state === 'active') await t.core.standing.cancel({ accountId: r.account_id, kind: 'live' }, r.id);
});
afterAll(async () => {
  await t?.close();
});

/** A fresh account and its admin key as the owner of what it creates. */
async function owner(name: string, scopes: readonly Scope[] = allScopes, kind: 'live' | 'test' = 'live'): Promise<StandingOwner> {
  const a = await t.account(name);
  const [admin] = await t.core.keys.list(a.id);
  return { accountId: a.id, kind, keyId: admin?.id ?? null, scopes };
}
const create = (o: StandingOwner, text: string, allowAct = false) => {
  const spec = parseStanding(text);
  if (!spec) throw new Error(`not a standing intent: ${text}`);
  return t.core.standing.create(o, text, spec, { allowAct });
};
const record = async (r: StandingRecord) => (await t.store.listStanding(r.account_id)).find((x) => x.id === r.id) as StandingRecord;
/** What this standing intent said, where it is kept: presence thread entries and message events. */
async function spoken(r: StandingRecord) {
  const cause = `standing:${r.id}`;
  const thread = (await t.store.readThread(r.account_id, { limit: 1_000 })).filter((e) => e.kind === 'presence' && e.cause === cause);
  const events = (await t.events(r.account_id, 'live', 'message')).filter((e) => e.data.cause === cause);
  return { thread: thread.map((e) => (e.kind === 'presence' ? e.text : '')), events: events.map((e) => e.data.text as string) };
}

// Prices move the honest way: another devnet account trades against both stable pools of WETH.
const trader = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 7 });
const traderKey = toHex(trader.getHdKey().privateKey as Uint8Array) as Hex;
async function trade(tx: TxRequest) {
  const signed = await t.chain.signTransaction(traderKey, tx, await t.chain.nonceOf(trader.address, 'pending'));
  await t.chain.sendRaw(signed.raw);
  expect((await t.chain.waitForReceipt(signed.hash, 10_000)).status).toBe('success');
}
const stables = () => t.devnet.deployment.tokens.filter((x) => x.stable).map((x) => x.address);
const weth = () => t.devnet.deployment.dex.weth;
async function sellEth(eth: string) {
  for (const s of stables()) {
    await trade(
      t.chain.buildSwap({ path: [weth(), s], amountIn: parseEther(eth), minAmountOut: 0n, recipient: trader.address, nativeIn: true }),
    );
  }
}
async function buyEthBack() {
  for (const s of stables()) {
    const amount = await t.chain.tokenBalance(s, trader.address);
    if (amount === 0n) continue;
    await trade(t.chain.buildApprove(s, t.devnet.deployment.dex.router, amount));
    await trade(t.chain.buildSwap({ path: [s, weth()], amountIn: amount, minAmountOut: 0n, recipient: trader.address, nativeOut: true }));
  }
}
const wethPrice = async () => {
  const snapshot = await t.wallet.views.market.snapshot();
  return snapshot.prices.priceOf(t.devnet.deployment.tokens.find((x) => x.symbol === 'WETH') as never) as bigint;
};
const usd = (n: string) => parseEther(n); // USD amounts are 18-decimal, like ether

describe('create', () => {
  it('needs the scopes of what it will do when it fires', async () => {
    const reader = await owner('scopes', ['talk']);
    await expect(create(reader, 'tell me when WETH is below 2000')).rejects.toMatchObject({
      type: 'scope',
      extra: { missing: ['wallet:read'] },
    });
    const actor = { ...reader, scopes: ['talk', 'wallet:read', 'wallet:act'] as Scope[] };
    await expect(create(actor, 'when WETH is below 2000, wrap 0.001 ETH')).rejects.toMatchObject({ type: 'invalid_request' });
    const noAct = { ...reader, scopes: ['talk', 'wallet:read'] as Scope[] };
    await expect(create(noAct, 'when WETH is below 2000, wrap 0.001 ETH', true)).rejects.toMatchObject({ type: 'scope' });
    expect((await create(actor, 'when WETH is below 2000, wrap 0.001 ETH', true)).may_act).toBe(true);
    expect(await t.core.standing.list({ accountId: reader.accountId, kind: 'live' })).toHaveLength(1);
  });

  it('checks the tokens it names and the amount it would act with now, not when it fires', async () => {
    const o = await owner('tokens');
    await expect(create(o, 'tell me when FOO is below 1')).rejects.toMatchObject({ type: 'intent_unresolved' });
    await expect(create(o, 'when WETH is below 2000, swap 5 FOO for WETH', true)).rejects.toMatchObject({ type: 'intent_unresolved' });
    await expect(create(o, 'when WETH is below 2000, swap 0.0000001 USDC for WETH', true)).rejects.toThrow(/more decimal places/);
    await expect(create(o, 'when WETH is below 2000, wrap 0 ETH', true)).rejects.toThrow(/more than zero/);
    const r = await create(o, 'tell me when weth is below 2000');
    expect(r).toMatchObject({
      trigger: { kind: 'price', token: 'WETH', op: 'below', threshold_usd: usd('2000').toString() },
      armed: true,
      next_at: null,
      fired_count: 0,
      state: 'active',
      created_by: o.keyId,
      pending: [],
    });
    expect(await t.core.standing.list({ accountId: o.accountId, kind: 'live' })).toEqual([r]);
  });

  it('is stored once when the same turn runs again with the same id', async () => {
    const o = await owner('rerun');
    const spec = parseStanding('tell me when WETH is below 2000');
    if (!spec) throw new Error('unparsed');
    const first = await t.core.standing.create(o, 'first', spec, { allowAct: false, id: 'st_turn1' });
    const again = await t.core.standing.create(o, 'again', spec, { allowAct: false, id: 'st_turn1' });
    expect(again).toEqual(first);
    expect(await t.store.listStanding(o.accountId)).toHaveLength(1);
  });
});

describe('a daily trigger', () => {
  it('fires at its time once a day, speaking the balance once each time', async () => {
    const o = await owner('daily');
    const r = await create(o, 'every day at 09:00 tell me my balance');
    const nine = Date.parse('2026-06-01T09:00:00Z');
    expect(r.next_at).toBe(nine);
    clock.set(nine - 1);
    expect(await t.core.standing.tick()).toBe(0);
    clock.set(nine);
    expect(await t.core.standing.tick()).toBe(1);
    expect(await t.core.standing.tick()).toBe(0);
    expect(await record(r)).toMatchObject({ fired_count: 1, last_fired_at: nine, next_at: nine + DAY_MS, pending: [] });
    const said = await spoken(r);
    expect(said.thread).toHaveLength(1);
    expect(said.events).toEqual(said.thread);
    expect(said.thread[0]).toMatch(/^Your daily balance: .*WETH.* in total at block \d+\.$/);
    clock.set(nine + DAY_MS + 5_000);
    expect(await t.core.standing.tick()).toBe(1);
    expect(await record(r)).toMatchObject({ fired_count: 2, next_at: nine + 2 * DAY_MS });
    expect((await spoken(r)).thread).toHaveLength(2);
  });

  it('cancelled, never fires again; cancelling again is not_found', async () => {
    const o = await owner('cancel');
    const r = await create(o, 'every day at 23:30 tell me my balance');
    const cancelled = await t.core.standing.cancel({ accountId: o.accountId, kind: 'live' }, r.id);
    expect(cancelled.state).toBe('cancelled');
    expect(await t.core.standing.list({ accountId: o.accountId, kind: 'live' })).toEqual([]);
    await expect(t.core.standing.cancel({ accountId: o.accountId, kind: 'live' }, r.id)).rejects.toMatchObject({ type: 'not_found' });
    clock.set((r.next_at as number) + 1);
    expect(await t.core.standing.tick()).toBe(0);
    expect((await record(r)).fired_count).toBe(0);
  });

  it('made by a test key lives in the overlay and never fires', async () => {
    const o = await owner('testkey', allScopes, 'test');
    const r = await create(o, 'every day at 23:45 tell me my balance');
    expect((await t.core.standing.list({ accountId: o.accountId, kind: 'test' })).map((x) => x.id)).toEqual([r.id]);
    expect(await t.core.standing.list({ accountId: o.accountId, kind: 'live' })).toEqual([]);
    clock.set((r.next_at as number) + 1);
    expect(await t.core.standing.tick()).toBe(0);
    expect(await t.events(o.accountId, 'live')).toEqual([]);
    await t.core.standing.cancel({ accountId: o.accountId, kind: 'test' }, r.id);
  });

  it('a fire cut short before it speaks stays pending and is completed once by the next beat', async () => {
    const o = await owner('cutshort');
    const r = await create(o, 'every day at 22:00 tell me my balance');
    const realAppend = t.store.appendThread;
    t.store.appendThread = async () => {
      t.store.appendThread = realAppend;
      throw new Error('injected: the store went away');
    };
    clock.set(r.next_at as number);
    await expect(t.core.standing.tick()).rejects.toThrow(/injected/);
    expect((await record(r)).pending.map((p) => p.n)).toEqual([1]);
    expect(await spoken(r)).toEqual({ thread: [], events: [] });
    expect(await t.core.standing.tick()).toBe(0);
    expect((await record(r)).pending).toEqual([]);
    const said = await spoken(r);
    expect([said.thread.length, said.events.length]).toEqual([1, 1]);
    expect(await t.core.standing.tick()).toBe(0);
    expect((await spoken(r)).events).toHaveLength(1);
  });
});

describe('a price trigger', () => {
  it('already true when created fires on the next beat, without a new block, and only once', async () => {
    const o = await owner('already');
    const r = await create(o, 'tell me when WETH is above 2000');
    const quiet = await create(o, 'tell me when WETH is below 2000');
    expect(await t.core.standing.tick()).toBe(1);
    expect(await t.core.standing.tick()).toBe(0);
    expect(await record(r)).toMatchObject({ armed: false, fired_count: 1 });
    expect(await record(quiet)).toMatchObject({ armed: true, fired_count: 0 });
    const said = await spoken(r);
    expect(said.thread).toHaveLength(1);
    expect(said.thread[0]).toMatch(/^WETH is \d[\d,]*\.\d{2} USD, above your 2,?000\.00 USD line \(block \d+\)\.$/);
  });

  it('fires once per crossing: quiet while past the line, re-armed only past the 1% margin', async () => {
    const o = await owner('crossing');
    const start = await wethPrice();
    // A line 2% under today's price: selling ETH crosses it.
    const line = (start * 98n) / 100n / 10n ** 16n;
    const r = await create(o, `tell me when WETH is below ${line / 100n}.${String(line % 100n).padStart(2, '0')}`);
    const threshold = BigInt(r.trigger.kind === 'price' ? r.trigger.threshold_usd : '0');
    expect(await t.core.standing.tick()).toBe(0);
    await sellEth('30');
    expect(await wethPrice()).toBeLessThan(threshold);
    expect(await t.core.standing.tick()).toBe(1);
    await sellEth('1');
    expect(await t.core.standing.tick()).toBe(0);
    // Back over the line but within the margin: still disarmed.
    await buyEthBack();
    await sellEth('8');
    const near = await wethPrice();
    expect(near >= threshold && near < threshold + threshold / 100n).toBe(true);
    expect(await t.core.standing.tick()).toBe(0);
    expect((await record(r)).armed).toBe(false);
    await buyEthBack();
    expect(await wethPrice()).toBeGreaterThanOrEqual(threshold + threshold / 100n);
    expect(await t.core.standing.tick()).toBe(0);
    expect((await record(r)).armed).toBe(true);
    await sellEth('30');
    expect(await t.core.standing.tick()).toBe(1);
    expect(await record(r)).toMatchObject({ fired_count: 2, armed: false });
    expect((await spoken(r)).thread).toHaveLength(2);
    await buyEthBack();
  });
});

describe('an acting trigger', () => {
  it('acts once through the pipeline, keyed by its fire, and says what it did', async () => {
    const o = await owner('acts');
    const address = await t.wallet.wallets.address(o.accountId);
    const mined = await t.mined(address);
    const r = await create(o, 'when WETH is above 2000, wrap 0.001 ETH', true);
    expect(await t.core.standing.tick()).toBe(1);
    await t.core.standing.drain();
    expect(await t.core.standing.tick()).toBe(0);
    await t.core.standing.drain();
    expect(await t.mined(address)).toBe(mined + 1);
    const intent = await t.store.findIntentByIdempotencyKey(o.accountId, fireIntentKey(r.id, 1));
    expect(intent).toMatchObject({ state: 'done', source: 'standing', context: { standing_id: r.id, fire: 1 } });
    const said = await spoken(r);
    expect(said.thread).toHaveLength(1);
    expect(said.thread[0]).toMatch(/Done: wrap 0\.001 ETH \(\d+\.\d{2} USD\)\./);
    expect(said.thread[0]).toContain(intent?.txs[0]?.hash as string);
  });

  it('acts off the beat, one at a time per account; one cancelled while it waited does not act', async () => {
    const o = await owner('queued');
    const address = await t.wallet.wallets.address(o.accountId);
    const mined = await t.mined(address);
    const one = await create(o, 'when WETH is above 2000, wrap 0.001 ETH', true);
    const two = await create(o, 'when WETH is above 1000, wrap 0.002 ETH', true);
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
      // The beat is over while the first action waits for its broadcast.
      expect(await t.core.standing.tick()).toBe(2);
      await inside;
      const [sending, ...others] = await t.store.listIntents(o.accountId);
      expect(others).toEqual([]);
      const first = sending?.context?.standing_id === one.id ? one : two;
      const waiting = first === one ? two : one;
      await t.core.standing.cancel({ accountId: o.accountId, kind: 'live' }, waiting.id);
      release();
      await t.core.standing.drain();
      expect(await t.mined(address)).toBe(mined + 1);
      expect((await spoken(first)).thread[0]).toMatch(/Done: wrap/);
      expect((await spoken(waiting)).thread).toEqual([
        expect.stringMatching(/I did not wrap .*: the standing intent was cancelled first\.$/),
      ]);
    } finally {
      t.chain.sendRaw = realSend;
    }
  });

  it('does not act once the key that created it is revoked, and says why', async () => {
    const o = await owner('revoked');
    const address = await t.wallet.wallets.address(o.accountId);
    const mined = await t.mined(address);
    const r = await create(o, 'when WETH is above 2000, wrap 0.001 ETH', true);
    const by = {
      keyId: o.keyId as string,
      accountId: o.accountId,
      kind: 'live' as const,
      scopes: allScopes,
      validUntil: null,
      secretHash: '',
    };
    await t.core.keys.revoke(by, o.keyId as string);
    expect(await t.core.standing.tick()).toBe(1);
    await t.core.standing.drain();
    expect(await t.mined(address)).toBe(mined);
    expect(await t.store.listIntents(o.accountId)).toEqual([]);
    expect((await spoken(r)).thread).toEqual([
      expect.stringMatching(/I did not wrap 0\.001 ETH: the key that created it has been revoked\.$/),
    ]);
  });

  it('made without allow_act never acts, and says how to make one that may', async () => {
    const o = await owner('noallow');
    const spec = parseStanding('when WETH is above 2000, wrap 0.001 ETH');
    if (!spec) throw new Error('unparsed');
    // As a turn without allow_act could never create it, write it as an older version might have.
    const prepared = await t.core.standing.prepare(o, 'x', spec, { allowAct: true });
    const r = await t.core.standing.commit(o, { ...prepared, may_act: false });
    expect(await t.core.standing.tick()).toBe(1);
    await t.core.standing.drain();
    expect(await t.store.listIntents(o.accountId)).toEqual([]);
    expect((await spoken(r)).thread[0]).toMatch(/it was not created with the authority to act/);
  });
});
