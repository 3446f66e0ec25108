// Two servers driving one intent at once (an approval answered on each): each step is signed
// under the wallet's cluster-wide nonce lock only after checking that the stored record does
// not have it yet, so the step is signed once. Two in-process servers on one database and a
// shared devnet; server A's signing is held until server B's drive is under way (B read the
// record before A stored its signature) and A's settling until B is past its signing step.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSharedDevnet } from './cluster';
import { call, removeDir, startTestServer, type TestServer, tempDir } from './harness';
import { freshDatabaseEnv } from './test-database';
import { OPEN_POLICY } from './wallet-helpers';

let devnet: Awaited<ReturnType<typeof startSharedDevnet>>;
let a: TestServer;
let b: TestServer;
let sql: postgres.Sql;
const dirs: string[] = [];

beforeAll(async () => {
  devnet = await startSharedDevnet();
  const db = await freshDatabaseEnv();
  sql = postgres(db.PRESENCE_DATABASE_URL as string, { max: 1, onnotice: () => undefined });
  const env = { ...db, PRESENCE_CHAIN: 'devnet', PRESENCE_RPC_URL: devnet.rpcUrl };
  dirs.push(tempDir(), tempDir());
  a = await startTestServer({ dataDir: dirs[0], env, chain: true });
  b = await startTestServer({ dataDir: dirs[1], env, chain: true, keys: { live: a.live, test: a.test } });
}, 120_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await sql?.end();
  await devnet?.stop();
  for (const d of dirs) removeDir(d);
});

describe('one intent driven on two servers at once', () => {
  it('its step is signed once: one transaction on chain, both approvals answer it, one confirm event', async () => {
    const { account, admin } = await a.core.accounts.create('race');
    const key = admin.secret;
    const address = (await call(a.url, 'GET', '/v1/wallet', { key })).json.address as `0x${string}`;
    expect((await call(a.url, 'PUT', '/v1/wallet/policy', { key, body: { ...OPEN_POLICY, confirm_over: '1 USD' } })).status).toBe(200);
    const held = await call(a.url, 'POST', '/v1/wallet/intent', { key, body: { do: 'wrap 0.01 ETH' } });
    expect(held.status, held.text).toBe(202);
    const id = held.json.confirm_id as string;
    const chainA = a.core.wallet?.chain;
    const chainB = b.core.wallet?.chain;
    if (!chainA || !chainB) throw new Error('no chain');
    const first = await chainA.nonceOf(address, 'latest');

    let bUnderWay = () => {};
    const bReady = new Promise<void>((r) => {
      bUnderWay = r;
    });
    let bWaits = () => {};
    const bWaiting = new Promise<void>((r) => {
      bWaits = r;
    });
    const prepare = chainB.prepareTransaction;
    const sign = chainA.signPrepared;
    const receiptA = chainA.waitForReceipt;
    const receiptB = chainB.waitForReceipt;
    // A signs only once B's drive has read the record, and settles only once B has passed its
    // signing step: B then finds A's record signed but not done, the window the check is for.
    chainB.waitForReceipt = (...args) => {
      bWaits();
      return receiptB.apply(chainB, args);
    };
    chainA.waitForReceipt = async (...args) => {
      await bWaiting;
      return receiptA.apply(chainA, args);
    };
    chainB.prepareTransaction = (...args) => {
      bUnderWay();
      return prepare.apply(chainB, args);
    };
    chainA.signPrepared = async (...args) => {
      await bReady;
      return sign.apply(chainA, args);
    };
    try {
      const onA = call(a.url, 'POST', `/v1/confirm/${id}`, { key, body: { approve: true } });
      // B answers once A has claimed the hold: B finds it executing and drives it too.
      for (;;) {
        const r = await b.core.store.findIntentByConfirmId(account, id);
        if (r?.state === 'executing') break;
        await new Promise((res) => setTimeout(res, 10));
      }
      const onB = call(b.url, 'POST', `/v1/confirm/${id}`, { key, body: { approve: true } });
      const [ra, rb] = await Promise.all([onA, onB]);
      expect([ra.status, rb.status], `${ra.text} ${rb.text}`).toEqual([200, 200]);
      expect(rb.json.tx).toBe(ra.json.tx);
    } finally {
      chainA.signPrepared = sign;
      chainB.prepareTransaction = prepare;
      chainA.waitForReceipt = receiptA;
      chainB.waitForReceipt = receiptB;
    }
    expect(await chainA.nonceOf(address, 'latest')).toBe(first + 1);
    const confirms = await sql`SELECT data->>'status' AS status FROM events WHERE type = 'confirm' AND data->>'confirm_id' = ${id}`;
    expect(confirms.map((r) => r.status)).toEqual(['executed']);
  });
});
