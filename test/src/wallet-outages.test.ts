// An intent is executed exactly once and its outcome announced exactly once, whatever path
// finishes it: two approvals answered together, duplicates reaching the pipeline together,
// a chain outage before signing, a broadcast that failed after signing (retried by the
// client, resumed by the upkeep, or overtaken by a later intent that took its nonce).
// Outages are injected into the server's own chain port; "once" is counted on the devnet.
import { chain as chainLayer } from '@presence/core';
import { DEVNET_FUNDING } from '@presence/devnet';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { barrier } from './barrier';
import { call, createManualClock, removeDir, type SseFrame, startTestServer, type TestServer } from './harness';
import { allEvents, balances, minedFrom, newAccount, OPEN_POLICY, portOf, putPolicy, units } from './wallet-helpers';

type ChainPort = ReturnType<typeof portOf>;

describe('intents under races and outages', () => {
  const clock = createManualClock(Date.now());
  let s: TestServer;
  let port: ChainPort;
  let original: Pick<ChainPort, 'prepareTransaction' | 'signPrepared' | 'sendRaw'>;
  let originalStore: Pick<TestServer['core']['store'], 'findIntentByConfirmId'>;
  beforeAll(async () => {
    s = await startTestServer({ chain: true, clock, env: { PRESENCE_RATE_LIMIT: '100000/1s' } });
    port = portOf(s);
    original = { prepareTransaction: port.prepareTransaction, signPrepared: port.signPrepared, sendRaw: port.sendRaw };
    originalStore = { findIntentByConfirmId: s.core.store.findIntentByConfirmId };
  });
  afterEach(() => {
    Object.assign(port, original);
    Object.assign(s.core.store, originalStore);
  });
  afterAll(async () => {
    await s?.close();
    if (s) removeDir(s.dataDir);
  });

  const outage = () => new chainLayer.ChainUnavailableError('injected: the RPC went away');
  /** Fails the n-th call of a port method (1-based) with an outage; the others go through. */
  function failNth<K extends 'prepareTransaction' | 'sendRaw'>(method: K, n: number) {
    let calls = 0;
    const real = original[method] as (...a: unknown[]) => Promise<unknown>;
    (port as Record<K, unknown>)[method] = async (...args: unknown[]) => {
      if (++calls === n) throw outage();
      return real(...args);
    };
  }
  const intent = (key: string, text: string, idempotencyKey: string) =>
    call(s.url, 'POST', '/v1/wallet/intent', { key, body: { do: text }, idempotencyKey });
  const approve = (key: string, id: string) => call(s.url, 'POST', `/v1/confirm/${id}`, { key, body: { approve: true } });
  const eventsOf = async (account: string, key: string, type: string, pred: (f: SseFrame) => boolean = () => true) =>
    (await allEvents(s, account, key)).filter((f) => f.event === type && pred(f));
  const usd = (amount: string) => units(amount.split(' ')[0] as string, 18);
  const spentToday = async (key: string) => (await call(s.url, 'GET', '/v1/wallet', { key })).json.policy.spent_today as string;
  /** A fresh account under `policy`, and how many transactions its wallet has mined so far. */
  async function freshAccount(name: string, policy: Partial<typeof OPEN_POLICY>) {
    const a = await newAccount(s, name);
    await putPolicy(s, a.key, policy);
    return { ...a, mined: await minedFrom(s, a.address) };
  }

  it('two approvals answered together execute a two-step hold once', async () => {
    const { mined, ...a } = await freshAccount('twice', { confirm_over: '1 USD' });
    const held = await intent(a.key, 'swap 5 USDC for WETH', 'twice-1');
    expect(held.status, held.text).toBe(202);
    // Hold the swap's signature (the second) until the second answer has read the intent
    // mid-execution: it arrives while the first has signed and sent the approval and not yet
    // the swap. Both hooks pass through to the real chain port and store.
    const swapSigning = barrier();
    const secondSawItRunning = barrier();
    let signs = 0;
    port.signPrepared = async (...args) => {
      if (++signs === 2) {
        swapSigning.open();
        await secondSawItRunning.promise;
      }
      return original.signPrepared(...args);
    };
    s.core.store.findIntentByConfirmId = async (...args) => {
      const r = await originalStore.findIntentByConfirmId(...args);
      if (swapSigning.opened && (r?.state === 'executing' || r?.state === 'signed')) secondSawItRunning.open();
      return r;
    };
    const first = approve(a.key, held.json.confirm_id);
    await swapSigning.promise;
    const second = approve(a.key, held.json.confirm_id);
    await secondSawItRunning.promise;
    const [one, two] = await Promise.all([first, second]);
    expect(one.status, one.text).toBe(200);
    expect(two.status, two.text).toBe(200);
    expect(two.json.tx).toBe(one.json.tx);
    expect(await minedFrom(s, a.address)).toBe(mined + 2); // approve + swap, once
    expect((await balances(s, a.address)).USDC).toBe(DEVNET_FUNDING.usdc - units('5', 6));
    expect(await eventsOf(a.name, a.key, 'tx')).toHaveLength(1);
    expect(await eventsOf(a.name, a.key, 'confirm', (f) => f.data.status === 'executed')).toHaveLength(1);
  });

  it('duplicates reaching the pipeline together create one intent and act once', async () => {
    const { mined, ...a } = await freshAccount('dupes', OPEN_POLICY);
    const pipeline = s.core.wallet!.pipeline;
    const submit = () =>
      pipeline.submit({ caller: { accountId: a.name, kind: 'live' }, text: 'wrap 0.01 ETH', source: 'api', idempotencyKey: 'dup-1' });
    const results = await Promise.all([submit(), submit(), submit()]);
    expect(new Set(results.map((r) => (r.status === 'done' ? r.tx : null))).size).toBe(1);
    expect(results[0]?.status).toBe('done');
    expect(new Set(results.map((r) => r.intent_id)).size).toBe(1);
    expect(await minedFrom(s, a.address)).toBe(mined + 1);
    expect(await eventsOf(a.name, a.key, 'tx')).toHaveLength(1);
  });

  it('an outage before signing fails cleanly, costs nothing, and a retry with the same key acts once', async () => {
    const { mined, ...a } = await freshAccount('unsigned', OPEN_POLICY);
    failNth('prepareTransaction', 1);
    const failed = await intent(a.key, 'wrap 0.01 ETH', 'unsigned-1');
    expect(failed.status, failed.text).toBe(503);
    expect(failed.json.type).toBe('chain_unavailable');
    expect(await spentToday(a.key)).toBe('0.00 USD');
    const retry = await intent(a.key, 'wrap 0.01 ETH', 'unsigned-1');
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.status).toBe('done');
    expect(await minedFrom(s, a.address)).toBe(mined + 1);
    expect(await eventsOf(a.name, a.key, 'tx')).toHaveLength(1);
  });

  it('an approval interrupted before signing keeps the hold; approving again executes it once', async () => {
    const { mined, ...a } = await freshAccount('rehold', { confirm_over: '1 USD' });
    const held = await intent(a.key, 'wrap 0.01 ETH', 'rehold-1');
    expect(held.status, held.text).toBe(202);
    failNth('prepareTransaction', 1);
    const first = await approve(a.key, held.json.confirm_id);
    expect(first.status, first.text).toBe(503);
    const listed = await call(s.url, 'GET', '/v1/confirm?status=held', { key: a.key });
    expect(listed.json.confirmations.map((c: { confirm_id: string }) => c.confirm_id)).toContain(held.json.confirm_id);
    const second = await approve(a.key, held.json.confirm_id);
    expect(second.status, second.text).toBe(200);
    expect(await minedFrom(s, a.address)).toBe(mined + 1);
    expect(await eventsOf(a.name, a.key, 'confirm', (f) => f.data.status === 'executed')).toHaveLength(1);
  });

  it('recovery: an approval cut off before signing is held again; a new intent cut off fails and frees its key', async () => {
    const a = await newAccount(s, 'cutoff');
    await putPolicy(s, a.key, { confirm_over: '1 USD' });
    const held = await intent(a.key, 'wrap 0.01 ETH', 'cutoff-held');
    expect(held.status, held.text).toBe(202);
    await putPolicy(s, a.key, OPEN_POLICY);
    const direct = await intent(a.key, 'wrap 0.02 ETH', 'cutoff-direct');
    expect(direct.status, direct.text).toBe(200);
    // What a crash between claiming and signing leaves behind, written through the real store.
    const store = s.core.store;
    await store.transitionIntent(a.name, held.json.intent_id, ['held'], 'executing', {});
    const cut = { ...(await store.getIntent(a.name, direct.json.intent_id))!, id: 'in_cutoffcutoffcut', state: 'executing' as const };
    await store.createIntent({ ...cut, idempotency_key: 'cutoff-new', txs: [], block: null, executed_at: null });
    const mined = await minedFrom(s, a.address);
    await s.core.wallet!.recover();
    expect((await store.getIntent(a.name, held.json.intent_id))?.state).toBe('held');
    expect((await store.getIntent(a.name, 'in_cutoffcutoffcut'))?.state).toBe('failed');
    expect(await minedFrom(s, a.address)).toBe(mined);
    const approved = await approve(a.key, held.json.confirm_id);
    expect(approved.status, approved.text).toBe(200);
    const retried = await intent(a.key, 'wrap 0.02 ETH', 'cutoff-new');
    expect(retried.status, retried.text).toBe(200);
    expect(await minedFrom(s, a.address)).toBe(mined + 2);
  });

  it('a broadcast lost after signing: the retried approval sends the stored bytes and announces once', async () => {
    const { mined, ...a } = await freshAccount('resend', { confirm_over: '1 USD' });
    const held = await intent(a.key, 'wrap 0.01 ETH', 'resend-1');
    failNth('sendRaw', 1);
    const first = await approve(a.key, held.json.confirm_id);
    expect(first.status, first.text).toBe(503);
    expect(await minedFrom(s, a.address)).toBe(mined);
    const second = await approve(a.key, held.json.confirm_id);
    expect(second.status, second.text).toBe(200);
    expect(await minedFrom(s, a.address)).toBe(mined + 1);
    const txs = await eventsOf(a.name, a.key, 'tx');
    expect(txs.map((f) => f.data.hash)).toEqual([second.json.tx]);
    const confirms = await eventsOf(a.name, a.key, 'confirm', (f) => f.data.confirm_id === held.json.confirm_id);
    expect(confirms.map((f) => f.data.status)).toEqual(['executed']);
  });

  it('a broadcast lost after signing and never retried is resumed by the upkeep', async () => {
    const { mined, ...a } = await freshAccount('stranded', OPEN_POLICY);
    failNth('sendRaw', 1);
    const failed = await intent(a.key, 'wrap 0.01 ETH', 'stranded-1');
    expect(failed.status, failed.text).toBe(503);
    await s.core.maintain(); // too recent: it may still be someone's
    expect(await minedFrom(s, a.address)).toBe(mined);
    clock.advance(120_000);
    await s.core.maintain();
    await expect.poll(() => minedFrom(s, a.address), { timeout: 10_000 }).toBe(mined + 1);
    await expect.poll(async () => (await eventsOf(a.name, a.key, 'tx')).length, { timeout: 10_000 }).toBe(1);
  });

  it('a signed transaction whose nonce went to a later intent fails plainly and stops counting', async () => {
    const { mined, ...a } = await freshAccount('overtaken', OPEN_POLICY);
    failNth('sendRaw', 1);
    const lost = await intent(a.key, 'wrap 0.01 ETH', 'overtaken-1');
    expect(lost.status, lost.text).toBe(503);
    const next = await intent(a.key, 'wrap 0.02 ETH', 'overtaken-2');
    expect(next.status, next.text).toBe(200);
    const spentWithBoth = await spentToday(a.key);
    const retry = await intent(a.key, 'wrap 0.01 ETH', 'overtaken-1');
    expect(retry.status, retry.text).toBe(409);
    expect(retry.json.detail).toMatch(/can no longer be sent/);
    expect(await minedFrom(s, a.address)).toBe(mined + 1);
    // Only the intent that landed is spent today.
    expect(usd(await spentToday(a.key))).toBeLessThan(usd(spentWithBoth));
  });
});
