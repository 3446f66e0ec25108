// Amounts at their bounds, against the devnet: a policy amount above 10^12 of its unit is a 400
// (10^80 USD and 2^256−1 written out were accepted, and every swap needing an approval then
// answered 500); a policy stored before the bound still gives an approval within uint256 and
// within the bound; and a property run over policy amounts and intents finds no 5xx.
// postgres-suites.test.ts runs it again on PostgreSQL.
import { MAX_AMOUNT } from '@presence/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, type TestServer } from './harness';
import { type Hex, newAccount, OPEN_POLICY, portOf, tokenOf, units } from './wallet-helpers';

const HUGE = [`1${'0'.repeat(80)}`, (2n ** 256n - 1n).toString(), '1000000000001', '1000000000000.000001', `${'9'.repeat(60)}.5`];

describe('amounts at their bounds', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ chain: true, env: { PRESENCE_RATE_LIMIT: '100000/1s' } });
  });
  afterAll(async () => {
    await s?.close();
    if (s) removeDir(s.dataDir);
  });

  it.each(['per_tx_cap', 'confirm_over', 'daily_cap'] as const)(
    'a %s above 10^12 of its unit is 400; 10^12 itself is kept',
    async (field) => {
      const a = await newAccount(s, `bound-${field}`);
      for (const n of HUGE)
        for (const unit of ['USD', 'WETH']) {
          const r = await call(s.url, 'PUT', '/v1/wallet/policy', { key: a.key, body: { ...OPEN_POLICY, [field]: `${n} ${unit}` } });
          expect([r.status, r.json.type], `${n} ${unit}`).toEqual([400, 'invalid_request']);
        }
      const ok = await call(s.url, 'PUT', '/v1/wallet/policy', { key: a.key, body: { ...OPEN_POLICY, [field]: `${MAX_AMOUNT} USD` } });
      expect(ok.status, ok.text).toBe(200);
    },
  );

  it('a withdrawal or an intent naming more than 10^12 is refused (400, 422), never a 500', async () => {
    const a = await newAccount(s, 'huge-intents');
    for (const n of HUGE) {
      const w = await call(s.url, 'POST', '/v1/wallet/withdraw', { key: a.key, body: { to: `0x${'1'.repeat(40)}`, amount: `${n} USDC` } });
      expect(w.status, w.text).toBe(400);
      for (const text of [`swap ${n} USDC for WETH`, `buy $${n} of WETH`, `wrap ${n}`, `send ${n} USDC to 0x${'2'.repeat(40)}`]) {
        const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: a.key, body: { do: text } });
        expect([r.status, r.json.type], text).toEqual([422, 'intent_unresolved']);
      }
    }
  });

  it('a daily cap stored before the bound (10^80 USD) still swaps, approving at most 10^12 USD of the token', async () => {
    const a = await newAccount(s, 'legacy-cap');
    const { accountId } = await s.core.keys.authenticate(a.key);
    await s.core.policies.put({ accountId, kind: 'live' }, { ...OPEN_POLICY, deny: [], daily_cap: `1${'0'.repeat(80)} USD` });
    const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: a.key, body: { do: 'swap 5 USDC for WETH' } });
    expect([r.status, r.json.status], r.text).toEqual([200, 'done']);
    const usdc = tokenOf(s, 'USDC');
    const allowance = await portOf(s).allowance(usdc.address as Hex, a.address, portOf(s).tokenList.dex.router as Hex);
    // USDC is about 1 USD on the devnet: 10^12 USD of it is about 10^12 USDC, give or take the pool's price.
    expect(allowance).toBeGreaterThan(0n);
    expect(allowance).toBeLessThanOrEqual(units('2000000000000', 6));
  });

  it('answers no 5xx to any policy amount or intent (property run)', async () => {
    const number = fc.oneof(
      fc.constantFrom('0', '1', '0.5', '1000000000000', ...HUGE),
      fc.bigInt({ min: 0n, max: 10n ** 15n }).map(String),
      fc.tuple(fc.nat(10_000), fc.stringMatching(/^\d{1,20}$/)).map(([w, f]) => `${w}.${f}`),
    );
    const unit = fc.constantFrom('USD', 'ETH', 'WETH', 'USDC', 'DAI');
    const amount = fc.tuple(number, unit).map(([n, u]) => `${n} ${u}`);
    const intent = fc.oneof(
      fc
        .tuple(number, fc.constantFrom('USDC', 'WETH', 'DAI', 'ETH'), fc.constantFrom('WETH', 'USDC', 'DAI'))
        .map(([n, a, b]) => `swap ${n} ${a} for ${b}`),
      number.map((n) => `buy $${n} of WETH`),
      number.map((n) => `sell ${n} WETH`),
      number.map((n) => `wrap ${n}`),
      number.map((n) => `unwrap ${n}`),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.tuple(amount, amount, amount), intent, fc.boolean(), async ([perTx, confirmOver, daily], text, stored) => {
        const a = await newAccount(s, `prop-${n++}`);
        const doc = { ...OPEN_POLICY, per_tx_cap: perTx, confirm_over: confirmOver, daily_cap: daily };
        if (stored) {
          // As a document written before the bound: straight to core, past the schema.
          const { accountId } = await s.core.keys.authenticate(a.key);
          await s.core.policies.put({ accountId, kind: 'live' }, { ...doc, deny: [] }).catch((e) => {
            if (e?.type !== 'invalid_request') throw e;
          });
        } else {
          const put = await call(s.url, 'PUT', '/v1/wallet/policy', { key: a.key, body: doc });
          expect([200, 400], put.text).toContain(put.status);
        }
        const r = await call(s.url, 'POST', '/v1/wallet/intent', { key: a.key, body: { do: text } });
        expect(r.status, `${text} under ${JSON.stringify(doc)}: ${r.text}`).toBeLessThan(500);
      }),
      { numRuns: 40, seed: 31 },
    );
  });
});
