// Two servers acting for one account at once, two in-process servers on one database and a
// shared devnet:
// - one intent driven on both (an approval answered on each): each step is signed under the
//   wallet's cluster-wide nonce lock only after checking that the stored record does not have
//   it yet, so the step is signed once. Server A's signing is held until server B's drive is
//   under way (B read the record before A stored its signature) and A's settling until B is
//   past its signing step;
// - intents sent to both at once against one daily cap: the gate (today's spend read, the
//   decision, the reservation) runs under the account's cluster-wide lock, so together they
//   spend no more than the cap.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSharedDevnet } from './cluster';
import { call, removeDir, startTestServer, type TestServer, tempDir } from './harness';
import { freshDatabaseEnv } from './test-database';
import { OPEN_POLICY, putPolicy, until } from './wallet-helpers';

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
/** True while some session waits in PostgreSQL for the cluster lock `name` (postgres-locks.ts keys it by hashtextextended). */
async function waitingFor(name: string) {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_locks
    WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
      AND classid::bigint = (hashtextextended(${name}, 0) >> 32) & 4294967295
      AND objid::bigint = hashtextextended(${name}, 0) & 4294967295`;
  return (row?.n ?? 0) > 0;
}

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
      await until(
        async () => (await b.core.store.findIntentByConfirmId(account, id))?.state === 'executing',
        20_000,
        'A to claim the hold',
      );
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

describe('one daily cap, intents on two servers at once', () => {
  it('together they spend no more than the cap: the gate is locked across servers', async () => {
    const { account, admin } = await a.core.accounts.create('cap');
    const key = admin.secret;
    expect((await call(a.url, 'GET', '/v1/wallet', { key })).status).toBe(200);
    // Each swap is worth ~2 USD: two fit under 5 USD, a third does not.
    await putPolicy(a, key, { daily_cap: '5 USD' });
    // The first server to read today's spend holds on, before reserving, until the other
    // server is seen in PostgreSQL waiting for this account's gate: were each server's gate
    // locked only in its own process, the other would read the same spend instead of waiting
    // (and never be seen waiting).
    let first = true;
    let otherWaited: boolean | null = null;
    const slowed = [a, b].map((s) => {
      const spentSince = s.core.store.spentSince;
      s.core.store.spentSince = async (...args) => {
        const spent = await spentSince.apply(s.core.store, args);
        if (first) {
          first = false;
          otherWaited = await until(() => waitingFor(`gate:live:${account}`), 10_000, 'the other server waiting for the gate').then(
            () => true,
            () => false,
          );
        }
        return spent;
      };
      return () => {
        s.core.store.spentSince = spentSince;
      };
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          call((i % 2 ? b : a).url, 'POST', '/v1/wallet/intent', { key, body: { do: 'swap 2 USDC for WETH' } }),
        ),
      );
      expect(otherWaited, 'the other server waited for the gate while the first held it').toBe(true);
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses, answers.map((r) => r.text).join('\n')).toEqual([200, 200, 409, 409, 409, 409]);
      for (const r of answers.filter((x) => x.status === 409)) expect(r.json).toMatchObject({ type: 'policy_block', rule: 'daily_cap' });
    } finally {
      for (const restore of slowed) restore();
    }
    const done = await a.core.store.listIntents(account, { states: ['done'] });
    expect(done).toHaveLength(2);
  });
});
