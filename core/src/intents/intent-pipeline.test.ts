// The intent pipeline on a real devnet, a temporary lowdb store and a driven clock: the policy
// gate decides execute, hold or block (blocked leaves nothing behind); confirm_over is
// exclusive; the daily cap adds up spends (held ones aside), holds under concurrency and
// resets at the UTC day; an Idempotency-Key makes a retry the same intent (resumed, never
// acted twice) unless nothing was sent; a test key's intent is rehearsed in the overlay.
// Each test has its own account, so its wallet, spend and events start empty.
import type { IntentResult, KeyKind } from '@presence/protocol';
import { type Address, parseEther } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetCore, startDevnetCore } from '../../testing/devnet-core-fixture';
import { createManualClock, iso } from '../clock/clock';
import type { IntentTiming, KindOutcome } from './intent-pipeline';

const DAY_MS = 86_400_000;
const clock = createManualClock(Date.parse('2026-05-04T10:00:00Z'));
let t: DevnetCore;

beforeAll(async () => {
  t = await startDevnetCore(clock, 'pipeline');
});
afterEach(() => t.restore());
afterAll(async () => {
  await t?.close();
});

const submit = (accountId: string, text: string, o: { key?: string; mode?: KeyKind } = {}) =>
  t.wallet.pipeline.submit({ caller: { accountId, kind: o.mode ?? 'live' }, text, source: 'api', idempotencyKey: o.key ?? null });
const intents = (accountId: string, mode: KeyKind = 'live') => t.core.storeFor(mode).listIntents(accountId);
const wethOf = async (address: Address) => {
  const b = await t.chain.balances(address);
  return b.tokens.find((x) => x.token.symbol === 'WETH')?.amount ?? 0n;
};
const done = (r: IntentResult) => {
  if (r.status !== 'done') throw new Error(`expected done, got ${JSON.stringify(r)}`);
  return r;
};
const held = (r: IntentResult) => {
  if (r.status !== 'needs_confirm') throw new Error(`expected needs_confirm, got ${JSON.stringify(r)}`);
  return r;
};

describe('the gate', () => {
  it('under confirm_over: executes at once, lands on chain, is stored done and announced once', async () => {
    const a = await t.account('now', { confirm_over: '5 USD' });
    const [mined, weth] = [await t.mined(a.address), await wethOf(a.address)];
    const outcomes: KindOutcome[] = [];
    const off = t.wallet.pipeline.onOutcome((o) => {
      if (o.record.account_id === a.id) outcomes.push(o);
    });
    const r = done(await submit(a.id, 'wrap 0.001 ETH'));
    off();
    expect(r).toMatchObject({ summary: 'wrap 0.001 ETH', amount: '0.001 ETH' });
    expect(r).not.toHaveProperty('simulated');
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect((await wethOf(a.address)) - weth).toBe(parseEther('0.001'));
    const [record] = await intents(a.id);
    expect(record).toMatchObject({ id: r.intent_id, state: 'done', block: r.block, executed_at: clock.now(), confirm_id: null });
    expect(record?.txs.map((x) => x.hash)).toEqual([r.tx]);
    expect(BigInt(record?.value_usd ?? 0)).toBeGreaterThan(0n);
    const txs = await t.events(a.id, 'live', 'tx');
    expect(txs.map((e) => [e.data.hash, (e.data.intent as { id: string }).id])).toEqual([[r.tx, r.intent_id]]);
    expect(outcomes.map((o) => [o.status, o.caller.kind, o.record.id])).toEqual([['done', 'live', r.intent_id]]);
  });

  it('over confirm_over and under per_tx_cap: held with a confirm id and a deadline, nothing signed', async () => {
    const a = await t.account('hold', { confirm_over: '10 USD', per_tx_cap: '50 USD', confirm_timeout_s: 120 });
    const mined = await t.mined(a.address);
    const r = held(await submit(a.id, 'wrap 0.01 ETH'));
    expect(r.confirm_id).toMatch(/^cf_\w{16}$/);
    expect(r.expires_at).toBe(iso(clock.now() + 120_000));
    const [record] = await intents(a.id);
    expect(record).toMatchObject({ id: r.intent_id, state: 'held', confirm_id: r.confirm_id, txs: [], expires_at: clock.now() + 120_000 });
    expect(await t.mined(a.address)).toBe(mined);
    const [event, ...more] = await t.events(a.id, 'live', 'needs_confirm');
    expect(more).toEqual([]);
    expect(event?.data).toMatchObject({ confirm_id: r.confirm_id, intent_id: r.intent_id, amount: '0.01 ETH', timeout_s: 120 });
    expect(event?.data.value_usd).toMatch(/^\d+\.\d{2} USD$/);
    expect(await t.events(a.id, 'live', 'tx')).toEqual([]);
  });

  it('confirm_over is exclusive: a value equal to it executes, one wei more is held', async () => {
    const a = await t.account('edge', { confirm_over: '0.002 ETH' });
    expect((await submit(a.id, 'wrap 0.002 ETH')).status).toBe('done');
    expect((await submit(a.id, 'wrap 0.002000000000000001 ETH')).status).toBe('needs_confirm');
  });

  it('a deny rule blocks before anything is stored, signed or announced, naming the rule', async () => {
    const a = await t.account('deny', { deny: [{ token: 'DAI' }, { action: 'send' }] });
    const mined = await t.mined(a.address);
    const to = '0x000000000000000000000000000000000000dEaD';
    await expect(submit(a.id, `send 1 USDC to ${to}`)).rejects.toMatchObject({ type: 'policy_block', extra: { rule: 'deny[1]' } });
    await expect(submit(a.id, 'swap 1 DAI for WETH')).rejects.toMatchObject({ type: 'policy_block', extra: { rule: 'deny[0]' } });
    // An idempotency key on a blocked intent is not taken: the same key later plans afresh.
    await expect(submit(a.id, 'swap 1 DAI for WETH', { key: 'blocked-1' })).rejects.toMatchObject({ type: 'policy_block' });
    expect(await intents(a.id)).toEqual([]);
    expect(await t.events(a.id)).toEqual([]);
    expect(await t.mined(a.address)).toBe(mined);
    expect((await submit(a.id, 'swap 1 USDC for WETH', { key: 'blocked-1' })).status).toBe('done');
  });

  it('per_tx_cap blocks, with the numbers, even an action that would otherwise be held', async () => {
    const a = await t.account('pertx', { per_tx_cap: '50 USD', confirm_over: '10 USD' });
    const blocked = submit(a.id, 'wrap 0.1 ETH');
    await expect(blocked).rejects.toMatchObject({ type: 'policy_block', extra: { rule: 'per_tx_cap' } });
    await expect(blocked).rejects.toThrow(/is over the most one action may spend, 50 USD \(per_tx_cap\)/);
    expect(await intents(a.id)).toEqual([]);
  });

  it('what the gate cannot read or resolve is intent_unresolved and leaves nothing behind', async () => {
    const a = await t.account('unread');
    await expect(submit(a.id, 'make me rich')).rejects.toMatchObject({ type: 'intent_unresolved' });
    await expect(submit(a.id, 'swap 5 FOO for WETH')).rejects.toMatchObject({ type: 'intent_unresolved' });
    await expect(submit(a.id, 'wrap 5000 ETH')).rejects.toThrow(/less than the 5000 ETH this needs/);
    expect(await intents(a.id)).toEqual([]);
  });
});

describe('the daily cap', () => {
  it('adds up the day’s spends and blocks the one that would pass it; the next UTC day starts afresh', async () => {
    const a = await t.account('daily', { daily_cap: '10 USD' });
    done(await submit(a.id, 'wrap 0.002 ETH')); // ~6 USD
    const spent = await t.wallet.pipeline.spentToday({ accountId: a.id, kind: 'live' });
    expect(spent).toBe(BigInt((await intents(a.id))[0]?.value_usd ?? -1));
    const over = submit(a.id, 'wrap 0.0015 ETH'); // ~4.5 USD more
    await expect(over).rejects.toMatchObject({ type: 'policy_block', extra: { rule: 'daily_cap' } });
    expect(await t.wallet.pipeline.spentToday({ accountId: a.id, kind: 'live' })).toBe(spent);
    clock.set(Math.floor(clock.now() / DAY_MS) * DAY_MS + DAY_MS);
    expect(await t.wallet.pipeline.spentToday({ accountId: a.id, kind: 'live' })).toBe(0n);
    expect((await submit(a.id, 'wrap 0.0015 ETH')).status).toBe('done');
  });

  it('does not count held intents: only what executes is spent', async () => {
    const a = await t.account('heldfree', { daily_cap: '10 USD', confirm_over: '1 USD' });
    held(await submit(a.id, 'wrap 0.002 ETH'));
    held(await submit(a.id, 'wrap 0.002 ETH'));
    held(await submit(a.id, 'wrap 0.002 ETH'));
    expect(await t.wallet.pipeline.spentToday({ accountId: a.id, kind: 'live' })).toBe(0n);
  });

  it('two intents gated at the same moment cannot both squeeze under it', async () => {
    const a = await t.account('squeeze', { daily_cap: '10 USD' });
    const results = await Promise.allSettled([submit(a.id, 'wrap 0.002 ETH'), submit(a.id, 'wrap 0.002 ETH')]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ type: 'policy_block', extra: { rule: 'daily_cap' } });
    expect((await intents(a.id)).map((r) => r.state)).toEqual(['done']);
  });
});

describe('an Idempotency-Key', () => {
  it('makes a retry the same intent: same answer, one record, one transaction, one event', async () => {
    const a = await t.account('idem');
    const mined = await t.mined(a.address);
    const first = done(await submit(a.id, 'wrap 0.001 ETH', { key: 'k-1' }));
    const again = done(await submit(a.id, 'wrap 0.001 ETH', { key: 'k-1' }));
    expect(again).toEqual(first);
    expect(await intents(a.id)).toHaveLength(1);
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect(await t.events(a.id, 'live', 'tx')).toHaveLength(1);
  });

  it('retried while held answers the same hold, with one needs_confirm event', async () => {
    const a = await t.account('idemheld', { confirm_over: '1 USD' });
    const first = held(await submit(a.id, 'wrap 0.002 ETH', { key: 'h-1' }));
    const again = held(await submit(a.id, 'wrap 0.002 ETH', { key: 'h-1' }));
    expect(again).toEqual(first);
    expect(await t.events(a.id, 'live', 'needs_confirm')).toHaveLength(1);
  });

  it('sent three times at once creates one intent and acts once', async () => {
    const a = await t.account('idemrace');
    const mined = await t.mined(a.address);
    const results = await Promise.all([1, 2, 3].map(() => submit(a.id, 'wrap 0.001 ETH', { key: 'race-1' })));
    expect(new Set(results.map((r) => done(r).tx)).size).toBe(1);
    expect(await intents(a.id)).toHaveLength(1);
    expect(await t.mined(a.address)).toBe(mined + 1);
  });

  it('on an intent cut off before signing is released: nothing was sent, and the retry plans afresh', async () => {
    const a = await t.account('released');
    const mined = await t.mined(a.address);
    t.failNth('prepareTransaction');
    await expect(submit(a.id, 'wrap 0.001 ETH', { key: 'r-1' })).rejects.toMatchObject({ type: 'chain_unavailable' });
    const [failed] = await intents(a.id);
    expect(failed).toMatchObject({ state: 'failed', idempotency_key: null, txs: [] });
    expect(failed?.error).toMatch(/nothing was sent/);
    expect(await t.wallet.pipeline.spentToday({ accountId: a.id, kind: 'live' })).toBe(0n);
    const retry = done(await submit(a.id, 'wrap 0.001 ETH', { key: 'r-1' }));
    expect(retry.intent_id).not.toBe(failed?.id);
    expect(await t.mined(a.address)).toBe(mined + 1);
  });

  it('on an intent signed but not sent: the retry sends the stored bytes, and it lands once', async () => {
    const a = await t.account('resumed');
    const mined = await t.mined(a.address);
    t.failNth('sendRaw');
    await expect(submit(a.id, 'wrap 0.001 ETH', { key: 's-1' })).rejects.toMatchObject({ type: 'chain_unavailable' });
    const [signed] = await intents(a.id);
    expect(signed?.state).toBe('signed');
    expect(signed?.txs).toHaveLength(1);
    expect(await t.mined(a.address)).toBe(mined);
    // In flight, it counts against the cap already.
    expect(await t.wallet.pipeline.spentToday({ accountId: a.id, kind: 'live' })).toBe(BigInt(signed?.value_usd ?? -1));
    t.restore();
    const retry = done(await submit(a.id, 'wrap 0.001 ETH', { key: 's-1' }));
    expect(retry).toMatchObject({ intent_id: signed?.id, tx: signed?.txs[0]?.hash });
    expect(await t.mined(a.address)).toBe(mined + 1);
    expect(await t.events(a.id, 'live', 'tx')).toHaveLength(1);
  });
});

describe('a test key', () => {
  it('has its intent rehearsed: simulated, kept in the overlay only, nothing sent, spent or announced live', async () => {
    const a = await t.account('rehearsal');
    const mined = await t.mined(a.address);
    const outcomes: KindOutcome[] = [];
    const off = t.wallet.pipeline.onOutcome((o) => {
      if (o.record.account_id === a.id) outcomes.push(o);
    });
    const r = done(await submit(a.id, 'wrap 0.001 ETH', { mode: 'test', key: 't-1' }));
    off();
    expect(r.simulated).toBe(true);
    expect(r.tx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await intents(a.id, 'live')).toEqual([]);
    const [record] = await intents(a.id, 'test');
    expect(record).toMatchObject({ id: r.intent_id, state: 'done' });
    expect(record?.txs).toEqual([{ hash: r.tx, raw: '', nonce: -1, label: 'simulated' }]);
    expect(await t.chain.getTransaction(r.tx as `0x${string}`)).toBeNull();
    expect(await t.mined(a.address)).toBe(mined);
    expect(await t.wallet.pipeline.spentToday({ accountId: a.id, kind: 'live' })).toBe(0n);
    expect(await t.wallet.pipeline.spentToday({ accountId: a.id, kind: 'test' })).toBe(BigInt(record?.value_usd ?? -1));
    expect(await t.events(a.id, 'live')).toEqual([]);
    expect(outcomes.map((o) => [o.status, o.caller.kind])).toEqual([['done', 'test']]);
    // The same key in the overlay is the same rehearsal; live, it is a new intent.
    expect(await submit(a.id, 'wrap 0.001 ETH', { mode: 'test', key: 't-1' })).toEqual(r);
    expect(done(await submit(a.id, 'wrap 0.001 ETH', { key: 't-1' })).intent_id).not.toBe(r.intent_id);
  });

  it('is gated by the same policy: a hold is simulated too, a block is a block', async () => {
    const a = await t.account('testgate', { confirm_over: '1 USD', per_tx_cap: '20 USD' });
    const h = held(await submit(a.id, 'wrap 0.002 ETH', { mode: 'test' }));
    expect(h.simulated).toBe(true);
    await expect(submit(a.id, 'wrap 0.01 ETH', { mode: 'test' })).rejects.toMatchObject({ extra: { rule: 'per_tx_cap' } });
    expect((await t.events(a.id, 'test', 'needs_confirm')).map((e) => e.data.confirm_id)).toEqual([h.confirm_id]);
    expect(await t.events(a.id, 'live')).toEqual([]);
  });
});

describe('withdraw', () => {
  it('reaches only an allowlisted address, and no cap applies to it', async () => {
    const to = '0x00000000000000000000000000000000000beef1' as Address;
    const a = await t.account('withdraw', { per_tx_cap: '1 USD', daily_cap: '1 USD' });
    const withdraw = () => t.wallet.pipeline.withdraw({ caller: { accountId: a.id, kind: 'live' }, to, amount: '0.01 ETH' });
    await expect(withdraw()).rejects.toMatchObject({ type: 'policy_block', extra: { rule: 'withdraw_allowlist' } });
    await t.core.policies.put(
      { accountId: a.id, kind: 'live' },
      {
        per_tx_cap: '1 USD',
        confirm_over: '1 USD',
        daily_cap: '1 USD',
        deny: [],
        withdraw_allowlist: [to],
        max_slippage_bps: 100,
        confirm_timeout_s: 600,
      },
    );
    const before = (await t.chain.balances(to)).eth;
    const r = done(await withdraw());
    expect((await t.chain.balances(to)).eth - before).toBe(parseEther('0.01'));
    expect((await intents(a.id)).find((x) => x.id === r.intent_id)).toMatchObject({ action: 'withdraw', source: 'withdraw', to });
  });

  it('refuses an amount in a unit the chain does not list as invalid_request (400, as the policy does), leaving nothing behind', async () => {
    const to = '0x00000000000000000000000000000000000beef2' as Address;
    const a = await t.account('withdraw-unit');
    const caller = { accountId: a.id, kind: 'live' as const };
    await expect(t.wallet.pipeline.withdraw({ caller, to, amount: '2 NOPE' })).rejects.toMatchObject({
      type: 'invalid_request',
      detail: expect.stringContaining('`amount`: unknown unit "NOPE"'),
    });
    // USD is a unit of caps, not something a wallet can send.
    await expect(t.wallet.pipeline.withdraw({ caller, to, amount: '2 USD' })).rejects.toMatchObject({ type: 'invalid_request' });
    await expect(t.core.policies.put(caller, { ...(await t.core.policies.get(caller)), per_tx_cap: '2 NOPE' })).rejects.toMatchObject({
      type: 'invalid_request',
    });
    expect(await intents(a.id)).toEqual([]);
  });
});

it('reports where the time of a live intent that executed at once went, in order', async () => {
  const a = await t.account('timing');
  const seen: IntentTiming[] = [];
  const off = t.wallet.pipeline.onTiming((x) => seen.push(x));
  const r = done(await submit(a.id, 'wrap 0.001 ETH'));
  off();
  expect(seen.map((x) => x.intent_id)).toEqual([r.intent_id]);
  const [x] = seen as [IntentTiming];
  expect([x.start <= x.quoted, x.quoted <= x.gated, x.gated <= x.sent, x.sent <= x.settled]).toEqual([true, true, true, true]);
});
