// The spend policy and confirmations over HTTP against the devnet, with a driven clock: the
// document (replace whole, versions, validation, label), the gate (deny rules, caps in USD and
// in tokens, the daily cap across intents and days), holds (202, needs_confirm, listing,
// approve/deny and their idempotency, re-checks at approval, Idempotency-Key re-POSTs) and
// expiry, including a hold whose time runs out while the server is down.
import { chain as chainLayer } from '@presence/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, removeDir, startTestServer, type TestServer } from './harness';
import {
  allEvents,
  balances,
  eventMatching,
  minedFrom,
  newAccount,
  OPEN_POLICY,
  portOf,
  putPolicy,
  randomAddress,
  tokenOf,
  units,
} from './wallet-helpers';

type Account = Awaited<ReturnType<typeof newAccount>>;
const SECOND = 1000;
const DAY = 86_400_000;

describe('spend policy and confirmations', () => {
  // Mid-day, so that advancing by minutes never crosses into tomorrow by accident.
  const clock = createManualClock(Math.floor(Date.now() / DAY) * DAY + DAY / 2);
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ chain: true, clock, env: { PRESENCE_RATE_LIMIT: '100000/1s' } });
  });
  afterAll(async () => {
    await s?.close();
    if (s) removeDir(s.dataDir);
  });

  const intent = (key: string, text: string, idempotencyKey?: string) =>
    call(s.url, 'POST', '/v1/wallet/intent', { key, body: { do: text }, idempotencyKey });
  const answer = (key: string, id: string, approve: boolean) => call(s.url, 'POST', `/v1/confirm/${id}`, { key, body: { approve } });
  const held = async (key: string, status = 'held') =>
    ((await call(s.url, 'GET', `/v1/confirm?status=${status}`, { key })).json.confirmations as { confirm_id: string }[]).map(
      (c) => c.confirm_id,
    );

  describe('the policy document', () => {
    it('PUT replaces the whole document and bumps version; the spend label follows it', async () => {
      const a = await newAccount(s, 'doc');
      const first = await call(s.url, 'GET', '/v1/wallet/policy', { key: a.key });
      expect(first.json).toMatchObject({ version: 0, per_tx_cap: '50 USD', confirm_over: '10 USD', daily_cap: '200 USD' });
      expect(first.json.deny).toEqual([{ action: 'send' }, { token: 'SCAM' }]);

      const docA = { ...OPEN_POLICY, deny: [{ token: 'DAI' }], withdraw_allowlist: [randomAddress()], confirm_timeout_s: 60 };
      const putA = await call(s.url, 'PUT', '/v1/wallet/policy', { key: a.key, body: docA });
      expect(putA.status).toBe(200);
      expect(putA.json).toEqual({ ...docA, version: 1, updated_at: new Date(clock.now()).toISOString() });
      const docB = { ...OPEN_POLICY };
      const putB = await call(s.url, 'PUT', '/v1/wallet/policy', { key: a.key, body: docB });
      expect(putB.json.version).toBe(2);
      // Whole replacement: nothing of document A survives.
      const got = await call(s.url, 'GET', '/v1/wallet/policy', { key: a.key });
      expect(got.json).toEqual({ ...docB, version: 2, updated_at: putB.json.updated_at });

      const label = async () => (await call(s.url, 'GET', '/v1/presence/me', { key: a.key })).json.wallet.spend;
      expect(await label()).toBe('guarded');
      await putPolicy(s, a.key, { confirm_over: '0 USD' });
      expect(await label()).toBe('confirm_all');
      await putPolicy(s, a.key, { per_tx_cap: '0 USDC' });
      expect(await label()).toBe('locked');
      await putPolicy(s, a.key, { deny: [{ action: '*' }] });
      expect(await label()).toBe('locked');
      expect((await call(s.url, 'GET', '/v1/wallet', { key: a.key })).json.policy).toMatchObject({ spend: 'locked', version: 5 });
    });

    it('an invalid document is 400 naming the field, and changes nothing', async () => {
      const a = await newAccount(s, 'invalid');
      await putPolicy(s, a.key, OPEN_POLICY);
      const { daily_cap: _omit, ...noDaily } = OPEN_POLICY;
      const cases: [unknown, string][] = [
        [{ ...OPEN_POLICY, per_tx_cap: 'fifty dollars' }, 'per_tx_cap'],
        [noDaily, 'daily_cap'],
        [{ ...OPEN_POLICY, deny: [{}] }, 'deny'],
        [{ ...OPEN_POLICY, deny: [{ action: 'steal' }] }, 'deny[0].action'],
        [{ ...OPEN_POLICY, withdraw_allowlist: ['not-an-address'] }, 'withdraw_allowlist'],
        [{ ...OPEN_POLICY, max_slippage_bps: 20_000 }, 'max_slippage_bps'],
        [{ ...OPEN_POLICY, confirm_timeout_s: 0 }, 'confirm_timeout_s'],
        [{ ...OPEN_POLICY, surprise: true }, 'surprise'],
      ];
      for (const [body, field] of cases) {
        const r = await call(s.url, 'PUT', '/v1/wallet/policy', { key: a.key, body });
        expect([r.status, r.json.type], field).toEqual([400, 'invalid_request']);
        expect(r.json.detail, field).toContain(field);
      }
      expect((await call(s.url, 'GET', '/v1/wallet/policy', { key: a.key })).json.version).toBe(1);
    });

    it('a test key’s PUT answers the would-be document but stores nothing', async () => {
      const before = (await call(s.url, 'GET', '/v1/wallet/policy', { key: s.live })).json;
      const r = await call(s.url, 'PUT', '/v1/wallet/policy', { key: s.test, body: { ...OPEN_POLICY, per_tx_cap: '1 USD' } });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ per_tx_cap: '1 USD', version: before.version + 1 });
      expect((await call(s.url, 'GET', '/v1/wallet/policy', { key: s.live })).json).toEqual(before);
    });
  });

  describe('the gate', () => {
    it('the default policy denies sends (and SCAM), naming the rule in plain words; nothing reaches the chain', async () => {
      const a = await newAccount(s, 'defaults');
      const mined = await minedFrom(s, a.address);
      const send = await intent(a.key, `send 1 USDC to ${randomAddress()}`);
      expect([send.status, send.json.type, send.json.rule]).toEqual([409, 'policy_block', 'deny[0]']);
      expect(send.json.detail).toBe('sends are not allowed (your policy allows swaps, wraps and unwraps)');
      const scam = await intent(a.key, 'swap 0.001 WETH for SCAM');
      expect([scam.status, scam.json.type, scam.json.rule]).toEqual([409, 'policy_block', 'deny[1]']);
      expect(scam.json.detail).toBe('actions involving SCAM are not allowed');
      expect(await minedFrom(s, a.address)).toBe(mined);
    });

    it('deny rules match on action, token and to', async () => {
      const a = await newAccount(s, 'denies');
      const blocked = randomAddress();
      await putPolicy(s, a.key, { deny: [{ to: blocked }, { action: 'swap', token: 'DAI' }, { action: 'wrap' }] });
      const toRule = await intent(a.key, `send 1 USDC to ${blocked}`);
      expect([toRule.status, toRule.json.rule]).toEqual([409, 'deny[0]']);
      expect((await intent(a.key, `send 1 USDC to ${randomAddress()}`)).status).toBe(200);
      const tokenRule = await intent(a.key, 'swap 1 USDC for DAI');
      expect([tokenRule.status, tokenRule.json.rule]).toEqual([409, 'deny[1]']);
      expect((await intent(a.key, 'swap 1 USDC for WETH')).status).toBe(200);
      expect((await intent(a.key, 'wrap 0.0001 ETH')).json.rule).toBe('deny[2]');
      expect((await intent(a.key, 'unwrap 0.0001 WETH')).status).toBe(200);
    });

    it('a deny rule may name its token by address', async () => {
      const a = await newAccount(s, 'denyaddr');
      await putPolicy(s, a.key, { deny: [{ token: tokenOf(s, 'DAI').address.toLowerCase() }] });
      const r = await intent(a.key, 'swap 1 USDC for DAI');
      expect([r.status, r.json.rule]).toEqual([409, 'deny[0]']);
      expect((await intent(a.key, 'swap 1 USDC for WETH')).status).toBe(200);
    });

    it('units and tokens the chain does not know are refused when the policy is written', async () => {
      const a = await newAccount(s, 'units');
      await putPolicy(s, a.key, OPEN_POLICY);
      const cases: [Partial<typeof OPEN_POLICY>, string][] = [
        [{ per_tx_cap: '50 EUR' }, 'per_tx_cap'],
        [{ confirm_over: '1 BTC' }, 'confirm_over'],
        [{ daily_cap: '10 USDT' }, 'daily_cap'],
        [{ deny: [{ action: 'swap' }, { token: 'SCMA' }] }, 'deny[1].token'],
      ];
      for (const [patch, field] of cases) {
        const r = await call(s.url, 'PUT', '/v1/wallet/policy', { key: a.key, body: { ...OPEN_POLICY, ...patch } });
        expect([r.status, r.json.type], field).toEqual([400, 'invalid_request']);
        expect(r.json.detail, field).toContain(field);
      }
      // Caps in a listed token, and in ETH, are fine; the wallet view still prices them.
      await putPolicy(s, a.key, { per_tx_cap: '0.5 WETH', daily_cap: '1 ETH', confirm_over: '100 DAI' });
      const w = await call(s.url, 'GET', '/v1/wallet', { key: a.key });
      expect(w.status, w.text).toBe(200);
      expect(w.json.policy.per_tx_cap).toBe('0.5 WETH');
    });

    it('caps in USD: per_tx_cap blocks with the numbers; under it executes', async () => {
      const a = await newAccount(s, 'usdcap');
      await putPolicy(s, a.key, { per_tx_cap: '5 USD' });
      const over = await intent(a.key, 'swap 6 USDC for WETH');
      expect([over.status, over.json.type, over.json.rule]).toEqual([409, 'policy_block', 'per_tx_cap']);
      expect(over.json.detail).toContain('6.00 USD');
      expect(over.json.detail).toContain('over the most one action may spend, 5 USD (per_tx_cap)');
      expect((await intent(a.key, 'swap 5 USDC for WETH')).status).toBe(200);
    });

    it('caps in tokens are valued at the pools’ price of the block', async () => {
      const a = await newAccount(s, 'tokencap');
      // The gate prices WETH from its deepest stable pool; do the same from the reserves.
      const weth = tokenOf(s, 'WETH');
      let best = { depth: -1n, price: 0n };
      for (const sym of ['USDC', 'DAI']) {
        const stable = tokenOf(s, sym);
        const p = await portOf(s).pair(weth.address, stable.address);
        if (!p) continue;
        const depth = (p.reserveB * 10n ** 18n) / 10n ** BigInt(stable.decimals);
        const price = (p.reserveB * 10n ** 18n * 10n ** 18n) / (p.reserveA * 10n ** BigInt(stable.decimals));
        if (depth > best.depth) best = { depth, price };
      }
      const capUsd = (units('0.002', 18) * best.price) / 10n ** 18n;
      await putPolicy(s, a.key, { per_tx_cap: '0.002 WETH', daily_cap: '0.004 WETH', confirm_over: '100 USD' });
      const capWhole = Number(capUsd / 10n ** 18n); // ~6 USD
      const over = await intent(a.key, `swap ${capWhole + 1} USDC for WETH`);
      expect([over.status, over.json.rule]).toEqual([409, 'per_tx_cap']);
      expect(over.json.detail).toContain(`may spend, 0.002 WETH, ${chainLayer.formatUsd(capUsd)} (per_tx_cap)`);
      // Two intents under the per-tx cap fit the daily cap of 0.004 WETH; a third does not.
      const each = capWhole - 1;
      expect((await intent(a.key, `swap ${each} USDC for WETH`)).status).toBe(200);
      expect((await intent(a.key, `swap ${each} USDC for WETH`)).status).toBe(200);
      const daily = await intent(a.key, `swap ${each} USDC for WETH`);
      expect([daily.status, daily.json.rule]).toEqual([409, 'daily_cap']);
      expect(daily.json.detail).toContain('over your daily cap, 0.004 WETH');
      // confirm_over in a token: 3 DAI is 3 USD.
      await putPolicy(s, a.key, { confirm_over: '3 DAI' });
      expect((await intent(a.key, 'swap 4 USDC for WETH')).status).toBe(202);
      expect((await intent(a.key, 'swap 3 USDC for WETH')).status).toBe(200);
    });

    it('the daily cap adds up several intents, shows in GET /v1/wallet, and resets the next day', async () => {
      const a = await newAccount(s, 'daily');
      await putPolicy(s, a.key, { per_tx_cap: '10 USD', confirm_over: '10 USD', daily_cap: '12 USD' });
      expect((await intent(a.key, 'swap 5 USDC for WETH')).status).toBe(200);
      expect((await intent(a.key, 'swap 5 USDC for WETH')).status).toBe(200);
      const mined = await minedFrom(s, a.address);
      const third = await intent(a.key, 'swap 5 USDC for WETH');
      expect([third.status, third.json.type, third.json.rule]).toEqual([409, 'policy_block', 'daily_cap']);
      expect(third.json.detail).toContain('5.00 USD on top of the 10.00 USD spent today is over your daily cap, 12 USD (daily_cap)');
      expect(await minedFrom(s, a.address)).toBe(mined);
      expect((await intent(a.key, 'swap 2 USDC for WETH')).status).toBe(200);
      const w = await call(s.url, 'GET', '/v1/wallet', { key: a.key });
      expect(w.json.policy).toMatchObject({ spent_today: '12.00 USD', left_today: '0.00 USD', daily_cap: '12 USD' });
      expect((await intent(a.key, 'swap 1 USDC for WETH')).json.rule).toBe('daily_cap');

      clock.advance(DAY);
      expect((await call(s.url, 'GET', '/v1/wallet', { key: a.key })).json.policy.spent_today).toBe('0.00 USD');
      expect((await intent(a.key, 'swap 5 USDC for WETH')).status).toBe(200);
    });
  });

  describe('confirmations', () => {
    let a: Account;
    beforeAll(async () => {
      a = await newAccount(s, 'confirm');
      await putPolicy(s, a.key, { per_tx_cap: '100 USD', confirm_over: '10 USD', daily_cap: '1000 USD', confirm_timeout_s: 600 });
    });

    it('over confirm_over: 202 with confirm_id, a needs_confirm event, listed as held; a re-POST with the same key is the same hold', async () => {
      const mined = await minedFrom(s, a.address);
      const r = await intent(a.key, 'swap 15 USDC for WETH', 'hold-once');
      expect(r.status, r.text).toBe(202);
      expect(r.json).toMatchObject({
        status: 'needs_confirm',
        amount: '15 USDC',
        confirm_id: expect.stringMatching(/^cf_[0-9A-Za-z]{16}$/),
      });
      expect(r.json.expires_at).toBe(new Date(clock.now() + 600 * SECOND).toISOString());
      const ev = await eventMatching(s, a.key, (f) => f.event === 'needs_confirm' && f.data.confirm_id === r.json.confirm_id);
      expect(ev.data).toMatchObject({
        confirm_id: r.json.confirm_id,
        summary: r.json.summary,
        amount: '15 USDC',
        expires_at: r.json.expires_at,
        timeout_s: 600,
      });
      expect(await held(a.key)).toEqual([r.json.confirm_id]);

      const again = await intent(a.key, 'swap 15 USDC for WETH', 'hold-once');
      expect(again.status).toBe(202);
      expect(again.json.confirm_id).toBe(r.json.confirm_id);
      expect(again.text).toBe(r.text);
      expect(await held(a.key)).toEqual([r.json.confirm_id]);
      const holds = (await allEvents(s, a.name, a.key)).filter((f) => f.event === 'needs_confirm');
      expect(holds).toHaveLength(1);
      expect(await minedFrom(s, a.address)).toBe(mined);
      expect((await call(s.url, 'GET', '/v1/wallet', { key: a.key })).json.pending_confirmations).toBe(1);
    });

    it('approve executes it (tx and confirm events); the same answer again is idempotent, the opposite is 409 confirm_resolved', async () => {
      const [id] = await held(a.key);
      const before = await balances(s, a.address);
      const mined = await minedFrom(s, a.address);
      const ok = await answer(a.key, id as string, true);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json).toMatchObject({ confirm_id: id, status: 'executed', tx: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      const receipt = await portOf(s).waitForReceipt(ok.json.tx, 5_000);
      expect([receipt.status, Number(receipt.block)]).toEqual(['success', ok.json.block]);
      expect((await balances(s, a.address)).USDC).toBe((before.USDC as bigint) - units('15', 6));
      const tx = await eventMatching(s, a.key, (f) => f.event === 'tx' && f.data.hash === ok.json.tx);
      expect(tx.data.block).toBe(ok.json.block);
      const conf = await eventMatching(s, a.key, (f) => f.event === 'confirm' && f.data.confirm_id === id);
      expect(conf.data).toMatchObject({ status: 'executed', tx: ok.json.tx });
      const sent = (await minedFrom(s, a.address)) - mined;
      expect(sent).toBeGreaterThanOrEqual(1);

      const again = await answer(a.key, id as string, true);
      expect(again.status).toBe(200);
      expect(again.json).toMatchObject({ status: 'executed', tx: ok.json.tx, block: ok.json.block });
      const opposite = await answer(a.key, id as string, false);
      expect([opposite.status, opposite.json.type]).toEqual([409, 'confirm_resolved']);
      expect(await minedFrom(s, a.address)).toBe(mined + sent);
      expect(await held(a.key, 'executed')).toContain(id);
      expect(await held(a.key)).toEqual([]);
      const unknown = await answer(a.key, 'cf_0000000000000000', true);
      expect([unknown.status, unknown.json.type]).toEqual([404, 'not_found']);
    });

    it('deny drops it; deny again is idempotent; approve after that is 409 confirm_resolved', async () => {
      const mined = await minedFrom(s, a.address);
      const r = await intent(a.key, 'swap 20 USDC for WETH');
      expect(r.status).toBe(202);
      const no = await answer(a.key, r.json.confirm_id, false);
      expect([no.status, no.json]).toEqual([200, { confirm_id: r.json.confirm_id, status: 'denied' }]);
      const conf = await eventMatching(s, a.key, (f) => f.event === 'confirm' && f.data.confirm_id === r.json.confirm_id);
      expect(conf.data.status).toBe('denied');
      expect((await answer(a.key, r.json.confirm_id, false)).json.status).toBe('denied');
      const yes = await answer(a.key, r.json.confirm_id, true);
      expect([yes.status, yes.json.type]).toEqual([409, 'confirm_resolved']);
      expect(await held(a.key, 'denied')).toContain(r.json.confirm_id);
      expect(await minedFrom(s, a.address)).toBe(mined);
    });

    it('approval re-checks the policy: a cap tightened since the hold blocks it, and it stays held', async () => {
      const r = await intent(a.key, 'swap 15 USDC for WETH');
      expect(r.status).toBe(202);
      const mined = await minedFrom(s, a.address);
      await putPolicy(s, a.key, { per_tx_cap: '12 USD', confirm_over: '10 USD', daily_cap: '1000 USD' });
      const perTx = await answer(a.key, r.json.confirm_id, true);
      expect([perTx.status, perTx.json.type, perTx.json.rule]).toEqual([409, 'policy_block', 'per_tx_cap']);
      // Today 15 USD already went out (the approved hold above): a daily cap of 20 USD has no room.
      await putPolicy(s, a.key, { per_tx_cap: '100 USD', confirm_over: '10 USD', daily_cap: '20 USD' });
      const daily = await answer(a.key, r.json.confirm_id, true);
      expect([daily.status, daily.json.rule]).toEqual([409, 'daily_cap']);
      await putPolicy(s, a.key, { per_tx_cap: '100 USD', confirm_over: '10 USD', daily_cap: '1000 USD', deny: [{ token: 'USDC' }] });
      expect((await answer(a.key, r.json.confirm_id, true)).json.rule).toBe('deny[0]');
      expect(await minedFrom(s, a.address)).toBe(mined);
      expect(await held(a.key)).toEqual([r.json.confirm_id]);
      // Loosened again, the same hold can still be approved.
      await putPolicy(s, a.key, { per_tx_cap: '100 USD', confirm_over: '10 USD', daily_cap: '1000 USD' });
      const ok = await answer(a.key, r.json.confirm_id, true);
      expect(ok.json.status, ok.text).toBe('executed');
    });

    it('approvals answered at the same moment cannot both squeeze under the daily cap', async () => {
      const b = await newAccount(s, 'racing');
      await putPolicy(s, b.key, { per_tx_cap: '100 USD', confirm_over: '10 USD', daily_cap: '25 USD' });
      const holds = [await intent(b.key, 'swap 15 USDC for WETH'), await intent(b.key, 'swap 15 USDC for WETH')];
      for (const h of holds) expect(h.status).toBe(202);
      const mined = await minedFrom(s, b.address);
      const answers = await Promise.all(holds.map((h) => answer(b.key, h.json.confirm_id, true)));
      expect(answers.map((x) => x.status).sort()).toEqual([200, 409]);
      expect(answers.find((x) => x.status === 409)?.json.rule).toBe('daily_cap');
      const spent = (await call(s.url, 'GET', '/v1/wallet', { key: b.key })).json.policy.spent_today;
      expect(spent).toBe('15.00 USD');
      // One swap (behind its approval) reached the chain, not two.
      const sent = (await minedFrom(s, b.address)) - mined;
      expect(sent).toBe(2);
      expect((await portOf(s).getTransaction(answers.find((x) => x.status === 200)?.json.tx))?.block).not.toBeNull();
    });
  });

  describe('expiry (driven clock)', () => {
    let a: Account;
    beforeAll(async () => {
      a = await newAccount(s, 'expiry');
      await putPolicy(s, a.key, { per_tx_cap: '100 USD', confirm_over: '10 USD', daily_cap: '1000 USD', confirm_timeout_s: 30 });
    });

    it('a hold answered just before its timeout executes', async () => {
      const r = await intent(a.key, 'swap 11 USDC for WETH');
      expect(r.status).toBe(202);
      clock.advance(29 * SECOND);
      expect((await answer(a.key, r.json.confirm_id, true)).json.status).toBe('executed');
    });

    it('after the timeout: 409 confirm_expired for either answer, one confirm event with expired, nothing sent', async () => {
      const r = await intent(a.key, 'swap 12 USDC for WETH');
      expect(r.status).toBe(202);
      const mined = await minedFrom(s, a.address);
      clock.advance(31 * SECOND);
      expect(await held(a.key)).toEqual([]);
      expect(await held(a.key, 'expired')).toContain(r.json.confirm_id);
      const yes = await answer(a.key, r.json.confirm_id, true);
      expect([yes.status, yes.json.type]).toEqual([409, 'confirm_expired']);
      const no = await answer(a.key, r.json.confirm_id, false);
      expect([no.status, no.json.type]).toEqual([409, 'confirm_expired']);
      const expired = (await allEvents(s, a.name, a.key)).filter((f) => f.event === 'confirm' && f.data.confirm_id === r.json.confirm_id);
      expect(expired.map((f) => f.data.status)).toEqual(['expired']);
      expect(await minedFrom(s, a.address)).toBe(mined);
    });

    // Last in this file: it restarts the server.
    it('a hold whose time passed while the server was down is expired after the restart, never executed', async () => {
      const r = await intent(a.key, 'swap 13 USDC for WETH', 'hold-restart');
      expect(r.status).toBe(202);
      const mined = await minedFrom(s, a.address);
      clock.advance(31 * SECOND);
      s = await s.restart();
      const yes = await answer(a.key, r.json.confirm_id, true);
      expect([yes.status, yes.json.type]).toEqual([409, 'confirm_expired']);
      expect(await minedFrom(s, a.address)).toBe(mined);
      expect(await held(a.key, 'expired')).toContain(r.json.confirm_id);
      const expired = (await allEvents(s, a.name, a.key)).filter((f) => f.event === 'confirm' && f.data.confirm_id === r.json.confirm_id);
      expect(expired.map((f) => f.data.status)).toEqual(['expired']);
      // Re-POSTing the held intent still answers that same hold, and creates nothing new.
      const again = await intent(a.key, 'swap 13 USDC for WETH', 'hold-restart');
      expect(again.json.confirm_id).toBe(r.json.confirm_id);
      expect(await minedFrom(s, a.address)).toBe(mined);
    });
  });
});
