// Intents against the real devnet: every intent form executes over HTTP and moves balances by
// the quoted amount (checked against the pools' reserves and the chain's receipts), a tx event
// follows; 20 concurrent intents on one wallet land once each with consecutive nonces; test
// keys simulate without touching the chain; withdrawals only reach the allowlist.
import { chain as chainLayer } from '@presence/core';
import { DEVNET_FUNDING } from '@presence/devnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, openStream, removeDir, startTestServer, type TestServer } from './harness';
import {
  amountOut,
  anvilsOf,
  balances,
  eventMatching,
  type Hex,
  minedFrom,
  newAccount,
  OPEN_POLICY,
  portOf,
  putPolicy,
  quotedOf,
  randomAddress,
  rpc,
  tokenOf,
  units,
} from './wallet-helpers';

const { formatUnits } = chainLayer;

describe('wallet intents on the devnet', () => {
  let s: TestServer;
  let rpcUrl: string;
  beforeAll(async () => {
    s = await startTestServer({ chain: true, heartbeatMs: 100, env: { PRESENCE_RATE_LIMIT: '100000/1s' } });
    rpcUrl = (anvilsOf(s.dataDir)[0] as { rpcUrl: string }).rpcUrl;
  });
  afterAll(async () => {
    await s?.close();
    if (s) removeDir(s.dataDir);
  });

  /** Gas paid for `hash`, from the devnet's receipt. */
  const feeOf = async (hash: string) => {
    const r = await rpc<{ gasUsed: Hex; effectiveGasPrice: Hex }>(rpcUrl, 'eth_getTransactionReceipt', [hash]);
    return BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
  };

  /** Submits an intent that must execute, and checks the receipt, the sender and the tx event. */
  async function execute(who: { key: string; address: Hex }, text: string) {
    const before = await balances(s, who.address);
    const sentBefore = await minedFrom(s, who.address);
    const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: who.key, body: { do: text } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ status: 'done', tx: expect.stringMatching(/^0x[0-9a-f]{64}$/), block: expect.any(Number) });
    expect(r.json.simulated).toBeUndefined();
    const port = portOf(s);
    const receipt = await port.waitForReceipt(r.json.tx, 5_000);
    expect([receipt.status, Number(receipt.block)]).toEqual(['success', r.json.block]);
    const tx = await port.getTransaction(r.json.tx);
    expect(tx?.from.toLowerCase()).toBe(who.address.toLowerCase());
    const event = await eventMatching(s, who.key, (f) => f.event === 'tx' && f.data.hash === r.json.tx);
    expect(event.data).toMatchObject({
      hash: r.json.tx,
      block: r.json.block,
      intent: { id: r.json.intent_id, summary: r.json.summary, amount: r.json.amount },
    });
    const after = await balances(s, who.address);
    const delta = (sym: string) => (after[sym] as bigint) - (before[sym] as bigint);
    return { r: r.json, delta, txCount: (await minedFrom(s, who.address)) - sentBefore, fee: () => feeOf(r.json.tx) };
  }

  /** The pool's reserves (in, out) right now, as the quote will see them. */
  async function reserves(inSym: string, outSym: string) {
    const p = await portOf(s).pair(tokenOf(s, inSym).address, tokenOf(s, outSym).address);
    if (!p) throw new Error(`no ${inSym}-${outSym} pool`);
    return [p.reserveA, p.reserveB] as const;
  }

  describe('each intent form executes and moves balances by the quoted amount', () => {
    let who: { key: string; address: Hex };
    const slippage = OPEN_POLICY.max_slippage_bps;
    beforeAll(async () => {
      who = await newAccount(s, 'forms');
      await putPolicy(s, who.key, OPEN_POLICY);
    });

    it('swap X A for B', async () => {
      const [rIn, rOut] = await reserves('USDC', 'WETH');
      const { r, delta, txCount } = await execute(who, 'swap 25 USDC for WETH');
      expect(r.amount).toBe('25 USDC');
      const q = quotedOf(r.summary, 18, slippage);
      expect(q.symbol).toBe('WETH');
      expect(q.quoted).toBe(amountOut(units('25', 6), rIn, rOut));
      expect(delta('USDC')).toBe(-units('25', 6));
      expect(delta('WETH')).toBeGreaterThanOrEqual(q.min);
      expect(delta('WETH')).toBeLessThanOrEqual(q.quoted);
      expect(delta('WETH')).toBeGreaterThan(0n);
      expect(txCount).toBe(2); // first use of USDC: approve, then swap
    });

    it('buy $N of A (paid in the stablecoin at its 1 USD price)', async () => {
      const [rIn, rOut] = await reserves('USDC', 'WETH');
      const { r, delta, txCount } = await execute(who, 'buy $20 of WETH');
      expect(r.amount).toBe('20 USDC');
      const q = quotedOf(r.summary, 18, slippage);
      expect(q.quoted).toBe(amountOut(units('20', 6), rIn, rOut));
      expect(delta('USDC')).toBe(-units('20', 6));
      expect(delta('WETH')).toBeGreaterThanOrEqual(q.min);
      expect(delta('WETH')).toBeLessThanOrEqual(q.quoted);
      expect(txCount).toBe(1); // the allowance from the first swap covers it
    });

    it('sell X A (for the stablecoin)', async () => {
      const [rIn, rOut] = await reserves('WETH', 'USDC');
      const { r, delta } = await execute(who, 'sell 0.002 WETH');
      expect(r.amount).toBe('0.002 WETH');
      const q = quotedOf(r.summary, 6, slippage);
      expect(q.symbol).toBe('USDC');
      expect(q.quoted).toBe(amountOut(units('0.002', 18), rIn, rOut));
      expect(delta('WETH')).toBe(-units('0.002', 18));
      expect(delta('USDC')).toBeGreaterThanOrEqual(q.min);
      expect(delta('USDC')).toBeLessThanOrEqual(q.quoted);
    });

    it('swap native ETH for a token', async () => {
      const [rIn, rOut] = await reserves('WETH', 'DAI');
      const { r, delta, fee, txCount } = await execute(who, 'swap 0.003 ETH for DAI');
      const q = quotedOf(r.summary, 18, slippage);
      expect(q.quoted).toBe(amountOut(units('0.003', 18), rIn, rOut));
      expect(delta('DAI')).toBeGreaterThanOrEqual(q.min);
      expect(delta('DAI')).toBeLessThanOrEqual(q.quoted);
      expect(txCount).toBe(1);
      expect(delta('ETH')).toBe(-(units('0.003', 18) + (await fee())));
    });

    it('wrap ETH', async () => {
      const { r, delta, fee } = await execute(who, 'wrap 0.004 ETH');
      expect(r.amount).toBe('0.004 ETH');
      expect(delta('WETH')).toBe(units('0.004', 18));
      expect(delta('ETH')).toBe(-(units('0.004', 18) + (await fee())));
    });

    it('unwrap WETH', async () => {
      const { r, delta, fee } = await execute(who, 'unwrap 0.001 WETH');
      expect(r.amount).toBe('0.001 WETH');
      expect(delta('WETH')).toBe(-units('0.001', 18));
      expect(delta('ETH')).toBe(units('0.001', 18) - (await fee()));
    });

    it('send X A to 0x… (a token and native ETH)', async () => {
      const to = randomAddress();
      const usdc = tokenOf(s, 'USDC').address;
      const { r, delta } = await execute(who, `send 1.5 USDC to ${to}`);
      expect(r.summary).toContain(to);
      expect(delta('USDC')).toBe(-units('1.5', 6));
      expect(await portOf(s).tokenBalance(usdc, to)).toBe(units('1.5', 6));

      const to2 = randomAddress();
      const eth = await execute(who, `send 0.01 ETH to ${to2}`);
      expect(eth.delta('ETH')).toBe(-(units('0.01', 18) + (await eth.fee())));
      expect((await portOf(s).balances(to2)).eth).toBe(units('0.01', 18));
    });

    it('GET /v1/wallet shows the balances the chain holds, priced, and today’s spend', async () => {
      const w = await call(s.url, 'GET', '/v1/wallet', { key: who.key });
      expect(w.status).toBe(200);
      const onChain = await balances(s, who.address);
      for (const b of w.json.balances as { symbol: string; amount: string }[]) {
        const decimals = b.symbol === 'ETH' ? 18 : tokenOf(s, b.symbol).decimals;
        expect(b.amount).toBe(`${formatUnits(onChain[b.symbol] as bigint, decimals)} ${b.symbol}`);
      }
      expect(w.json.policy.spend).toBe('guarded');
      expect(Number.parseFloat(w.json.policy.spent_today)).toBeGreaterThan(0);
    });

    it('an unreadable or ambiguous intent is 422 intent_unresolved with the forms it knows', async () => {
      for (const text of ['make me rich', 'swap 5 FOO for WETH', 'swap 5 USDC for USDC']) {
        const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: who.key, body: { do: text } });
        expect([r.status, r.json.type], text).toEqual([422, 'intent_unresolved']);
        expect(r.json.detail.length).toBeGreaterThan(10);
      }
      const vague = await call(s.url, 'POST', '/v1/wallet/intent', { key: who.key, body: { do: 'make me rich' } });
      expect(vague.json.detail).toContain('swap 50 USDC for WETH');
    });
  });

  it('the very first request of a new account can be an intent: its wallet is created, funded and used', async () => {
    const { admin } = await s.core.accounts.create('firstact');
    const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: admin.secret, body: { do: 'swap 5 USDC for WETH' } });
    expect(r.status, r.text).toBe(200);
    const tx = await portOf(s).getTransaction(r.json.tx);
    const w = await call(s.url, 'GET', '/v1/wallet', { key: admin.secret });
    expect(tx?.from).toBe(w.json.address);
    expect((await balances(s, w.json.address)).USDC).toBe(DEVNET_FUNDING.usdc - units('5', 6));
  });

  it('20 concurrent intents on one wallet: 20 transactions, consecutive nonces, none twice', async () => {
    const who = await newAccount(s, 'burst');
    await putPolicy(s, who.key, OPEN_POLICY);
    const port = portOf(s);
    const first = await port.nonceOf(who.address, 'pending');
    const wethBefore = (await balances(s, who.address)).WETH as bigint;
    const amounts = Array.from({ length: 20 }, (_, i) => units(`0.000${String(i + 1).padStart(2, '0')}`, 18));
    const answers = await Promise.all(
      amounts.map((a) => call(s.url, 'POST', '/v1/wallet/intent', { key: who.key, body: { do: `wrap ${formatUnits(a, 18)} ETH` } })),
    );
    for (const a of answers) expect(a.status, a.text).toBe(200);
    const hashes = answers.map((a) => a.json.tx as Hex);
    expect(new Set(hashes).size).toBe(20);
    const txs = await Promise.all(hashes.map((h) => port.getTransaction(h)));
    const nonces = txs.map((t) => t?.nonce as number).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => first + i));
    for (const t of txs) {
      expect(t?.from.toLowerCase()).toBe(who.address.toLowerCase());
      expect(t?.block).not.toBeNull();
    }
    expect(await minedFrom(s, who.address)).toBe(first + 20);
    const wethAfter = (await balances(s, who.address)).WETH as bigint;
    expect(wethAfter - wethBefore).toBe(amounts.reduce((x, y) => x + y, 0n));
  });

  it('14 concurrent first swaps of a fresh wallet send one router approval, bounded by the daily cap', async () => {
    const who = await newAccount(s, 'approvals');
    await putPolicy(s, who.key, { ...OPEN_POLICY, daily_cap: '500 USD' });
    const port = portOf(s);
    const usdc = tokenOf(s, 'USDC');
    const router = port.tokenList.dex.router as Hex;
    const first = await port.nonceOf(who.address, 'pending');
    const answers = await Promise.all(
      Array.from({ length: 14 }, () => call(s.url, 'POST', '/v1/wallet/intent', { key: who.key, body: { do: 'swap 5 USDC for WETH' } })),
    );
    for (const a of answers) expect([a.status, a.json.status], a.text).toEqual([200, 'done']);
    // 14 swaps and a single approval.
    expect(await minedFrom(s, who.address)).toBe(first + 15);
    // Never unlimited: what 500 USD of USDC is at the quoted price (plus its drift from 1 USD), less the 70 USDC the swaps spent.
    const allowance = await port.allowance(usdc.address as Hex, who.address, router);
    expect(allowance).toBeGreaterThan(0n);
    expect(allowance).toBeLessThanOrEqual(units('550', 6) - units('70', 6));
  });

  describe('test keys', () => {
    it('an intent returns simulated: true with the hash of an unsent transaction; the chain and live streams see nothing', async () => {
      const address = (await call(s.url, 'GET', '/v1/wallet', { key: s.live })).json.address as Hex;
      const port = portOf(s);
      const pending = await port.nonceOf(address, 'pending');
      const before = await balances(s, address);
      const liveEvents = (await s.core.events.bounds({ accountId: 'default', kind: 'live' })).latest;
      const liveStream = openStream(s.url, '/v1/events', s.live);
      await liveStream.until(() => liveStream.cursors.length === 1); // subscribed

      const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.test, body: { do: 'swap 5 USDC for WETH' } });
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('presence-mode')).toBe('test');
      expect(r.json).toMatchObject({ status: 'done', simulated: true, tx: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect(await port.getTransaction(r.json.tx)).toBeNull();
      expect(await port.nonceOf(address, 'pending')).toBe(pending);
      expect(await balances(s, address)).toEqual(before);

      // Over confirm_over (default 10 USD): a simulated hold that live keys never see.
      const held = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.test, body: { do: 'swap 30 USDC for WETH' } });
      expect(held.status, held.text).toBe(202);
      expect(held.json).toMatchObject({ status: 'needs_confirm', simulated: true });
      const liveHolds = await call(s.url, 'GET', '/v1/confirm', { key: s.live });
      expect(liveHolds.json.confirmations.map((c: { confirm_id: string }) => c.confirm_id)).not.toContain(held.json.confirm_id);
      const testHolds = await call(s.url, 'GET', '/v1/confirm?status=held', { key: s.test });
      expect(testHolds.json.confirmations.map((c: { confirm_id: string }) => c.confirm_id)).toContain(held.json.confirm_id);
      const approved = await call(s.url, 'POST', `/v1/confirm/${held.json.confirm_id}`, { key: s.test, body: { approve: true } });
      expect(approved.status, approved.text).toBe(200);
      expect(approved.json).toMatchObject({ status: 'executed', simulated: true });
      expect(await port.getTransaction(approved.json.tx)).toBeNull();
      // Read back by id with the key that made it, and not with a live key.
      const one = await call(s.url, 'GET', `/v1/confirm/${held.json.confirm_id}`, { key: s.test });
      expect([one.status, one.json.status, one.json.tx]).toEqual([200, 'executed', approved.json.tx]);
      expect((await call(s.url, 'GET', `/v1/confirm/${held.json.confirm_id}`, { key: s.live })).status).toBe(404);

      expect((await s.core.events.bounds({ accountId: 'default', kind: 'live' })).latest).toBe(liveEvents);
      // A live marker after them: once the live stream has it, anything the test key's actions
      // had sent to it would have come first.
      const marker = await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'message', {
        text: 'marker',
        cause: 'standing:st_marker',
      });
      await liveStream.until(() => liveStream.frames.length >= 1);
      expect(liveStream.frames.map((f) => Number(f.id))).toEqual([marker.id]);
      await liveStream.close();
      expect(await port.nonceOf(address, 'pending')).toBe(pending);

      // The nonce was not consumed: the next live action takes it.
      const live = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: 'wrap 0.001 ETH' } });
      expect(live.status, live.text).toBe(200);
      expect((await port.getTransaction(live.json.tx))?.nonce).toBe(pending);
    });
  });

  describe('withdraw (admin)', () => {
    it('only reaches addresses on withdraw_allowlist, and intents cannot withdraw', async () => {
      const to = randomAddress();
      const usdc = tokenOf(s, 'USDC').address;
      const address = (await call(s.url, 'GET', '/v1/wallet', { key: s.live })).json.address as Hex;
      const mined = await minedFrom(s, address);
      const blocked = await call(s.url, 'POST', '/v1/wallet/withdraw', { key: s.live, body: { to, amount: '2 USDC' } });
      expect([blocked.status, blocked.json.type, blocked.json.rule]).toEqual([409, 'policy_block', 'withdraw_allowlist']);
      expect(blocked.json.detail).toContain(to);
      expect(await minedFrom(s, address)).toBe(mined);

      // A key without admin cannot withdraw at all, even to an allowlisted address.
      const actor = await call(s.url, 'POST', '/v1/keys', {
        key: s.live,
        body: { kind: 'live', name: 'actor', scopes: ['wallet:read', 'wallet:act'] },
      });
      expect(actor.status, actor.text).toBe(201);
      const policy = (await call(s.url, 'GET', '/v1/wallet/policy', { key: s.live })).json;
      const { version: _v, updated_at: _u, ...doc } = policy;
      const put = await call(s.url, 'PUT', '/v1/wallet/policy', { key: s.live, body: { ...doc, withdraw_allowlist: [to] } });
      expect(put.status, put.text).toBe(200);
      const forbidden = await call(s.url, 'POST', '/v1/wallet/withdraw', { key: actor.json.secret, body: { to, amount: '2 USDC' } });
      expect([forbidden.status, forbidden.json.type]).toEqual([403, 'scope']);
      // Not through the intent pipeline either: that grammar has no withdraw.
      const viaIntent = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: `withdraw 2 USDC to ${to}` } });
      expect([viaIntent.status, viaIntent.json.type]).toEqual([422, 'intent_unresolved']);
      expect(await portOf(s).tokenBalance(usdc, to)).toBe(0n);

      const ok = await call(s.url, 'POST', '/v1/wallet/withdraw', { key: s.live, body: { to, amount: '2 USDC' } });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json).toMatchObject({ status: 'done', tx: expect.any(String), block: expect.any(Number) });
      expect(await portOf(s).tokenBalance(usdc, to)).toBe(units('2', 6));
      expect(await minedFrom(s, address)).toBe(mined + 1);
      // The default deny on sends still stands for ordinary intents.
      const send = await call(s.url, 'POST', '/v1/wallet/intent', { key: s.live, body: { do: `send 1 USDC to ${to}` } });
      expect([send.status, send.json.type]).toEqual([409, 'policy_block']);
    });
  });
});
