// Crash safety of intents: the server (a real child process on its devnet) is SIGKILLed after
// an intent's transactions are signed and before their receipts are seen; after a restart the
// intent completes exactly once. "Once" is counted on the devnet (the wallet's nonce and the
// transactions themselves), never from our own records. Also: the chain RPC failing between
// the steps of a plan (approval, then swap) must not let a retry report the intent done
// without its swap.
//
// To land the kill deterministically inside the window, the test pauses anvil's automining:
// the signed transactions then wait in the mempool while the server waits for receipts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chain as chainLayer } from '@presence/core';
import { DEVNET_FUNDING } from '@presence/core/devnet';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { call, removeDir, startTestServer, type TestServer, tempDir } from './harness';
import { type Child, spawnServer } from './process';
import { databaseEnvFor } from './test-database';
import {
  allEvents,
  anvilsOf,
  balances,
  type Hex,
  minedFrom,
  newAccount,
  OPEN_POLICY,
  portOf,
  putPolicy,
  rpc,
  units,
  until,
} from './wallet-helpers';

type LoggedIntent = {
  id: string;
  idempotency_key: string | null;
  state: string;
  steps: unknown[];
  txs: { hash: Hex; nonce: number; label: string }[];
};

/**
 * The newest version of each intent as the store holds it: the account's append-only intents
 * log, or (on PostgreSQL) the intents table. Read behind the server's back, as a crash leaves it.
 */
async function loggedIntents(dataDir: string): Promise<Map<string, LoggedIntent>> {
  const byId = new Map<string, LoggedIntent>();
  const { PRESENCE_DATABASE_URL: url } = await databaseEnvFor(dataDir);
  if (url) {
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      for (const { doc } of await sql<{ doc: LoggedIntent }[]>`SELECT doc FROM intents WHERE account_id = 'default' ORDER BY seq`)
        byId.set(doc.id, doc);
    } finally {
      await sql.end();
    }
    return byId;
  }
  let text = '';
  try {
    text = readFileSync(path.join(dataDir, 'data', 'intents', 'default.jsonl'), 'utf8');
  } catch {
    return byId;
  }
  for (const line of text.split('\n')) {
    try {
      const r = JSON.parse(line) as LoggedIntent;
      byId.set(r.id, r);
    } catch {} // a torn last line
  }
  return byId;
}
const loggedByKey = async (dataDir: string, key: string) =>
  [...(await loggedIntents(dataDir)).values()].find((r) => r.idempotency_key === key);

describe('interrupted intents complete exactly once', () => {
  const dataDir = tempDir('presence-crash-');
  let child: Child | null = null;
  let s: TestServer | null = null;
  afterAll(async () => {
    if (child && child.proc.exitCode === null) {
      child.proc.kill('SIGKILL');
      await child.exited;
    }
    await s?.close();
    removeDir(dataDir);
  });

  const env = { PRESENCE_DATA_DIR: dataDir, PRESENCE_PORT: '0' };
  const keys = () => JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-keys.json'), 'utf8')) as { live: string; test: string };

  /** Starts the child server and pauses its devnet's mining; answers the wallet and its mined count. */
  async function startPaused() {
    child = await spawnServer(env);
    const w = await call(child.url, 'GET', '/v1/wallet', { key: keys().live }); // creates and funds the wallet
    expect(w.status, w.text).toBe(200);
    const [anvil] = anvilsOf(dataDir);
    if (!anvil) throw new Error('no devnet found for the child server');
    const address = w.json.address as Hex;
    const mined = Number(BigInt(await rpc<Hex>(anvil.rpcUrl, 'eth_getTransactionCount', [address, 'latest'])));
    await rpc(anvil.rpcUrl, 'evm_setAutomine', [false]);
    return { child, anvil, address, mined };
  }

  /** SIGKILL, then wait until the devnet it owned is gone too (its wrapper stops it). */
  async function kill(c: Child) {
    c.proc.kill('SIGKILL');
    await c.exited;
    await until(() => anvilsOf(dataDir).length === 0, 10_000, 'the old devnet to stop');
  }

  it('transactions lost with the node: recovery re-broadcasts the stored bytes; the swap lands once', async () => {
    const { child: c, address, mined } = await startPaused();
    // A first USDC swap is two transactions: approve, then swap. 5 USD is within the default policy.
    const submitted = call(c.url, 'POST', '/v1/wallet/intent', {
      key: keys().live,
      idempotencyKey: 'crash-lost',
      body: { do: 'swap 5 USDC for WETH' },
    }).catch((e: Error) => e);
    await until(
      async () => {
        const r = await loggedByKey(dataDir, 'crash-lost');
        return r?.state === 'signed' && r.txs.length === r.steps.length;
      },
      15_000,
      'the intent to be signed',
    );
    const signed = (await loggedByKey(dataDir, 'crash-lost')) as LoggedIntent;
    expect(signed.txs.map((t) => t.label)).toEqual(['approve', 'swap']);
    await kill(c);
    expect(await submitted).toBeInstanceOf(Error); // the client never got an answer

    s = await startTestServer({ dataDir, keys: keys(), chain: true });
    const port = portOf(s);
    // Exactly the two signed transactions are on the devnet, at consecutive nonces, once.
    expect(await minedFrom(s, address)).toBe(mined + 2);
    for (const [i, t] of signed.txs.entries()) {
      const tx = await port.getTransaction(t.hash);
      expect(tx?.nonce).toBe(mined + i);
      expect(tx?.from.toLowerCase()).toBe(address.toLowerCase());
      expect(tx?.block).not.toBeNull();
      expect((await port.waitForReceipt(t.hash, 5_000)).status).toBe('success');
    }
    expect((await loggedByKey(dataDir, 'crash-lost'))?.state).toBe('done');
    const swapHash = signed.txs[1]?.hash as Hex;
    expect((await balances(s, address)).USDC).toBe(DEVNET_FUNDING.usdc - units('5', 6));
    const announced = (await allEvents(s, 'default', keys().live)).filter((f) => f.event === 'tx');
    expect(announced.map((f) => f.data.hash)).toEqual([swapHash]);

    // The retry of the original request answers done with the swap, and sends nothing.
    const retry = await call(s.url, 'POST', '/v1/wallet/intent', {
      key: keys().live,
      idempotencyKey: 'crash-lost',
      body: { do: 'swap 5 USDC for WETH' },
    });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json).toMatchObject({ status: 'done', tx: swapHash });
    expect(await minedFrom(s, address)).toBe(mined + 2);
    await s.close();
    s = null;
  });

  it('a transaction mined while the server was dead: recovery finds it and does not send it again', async () => {
    const { child: c, anvil, address, mined } = await startPaused();
    const submitted = call(c.url, 'POST', '/v1/wallet/intent', {
      key: keys().live,
      idempotencyKey: 'crash-mined',
      body: { do: 'wrap 0.001 ETH' },
    }).catch((e: Error) => e);
    await until(async () => (await loggedByKey(dataDir, 'crash-mined'))?.state === 'signed', 15_000, 'the intent to be signed');
    const signed = (await loggedByKey(dataDir, 'crash-mined')) as LoggedIntent;
    const hash = signed.txs[0]?.hash as Hex;
    // The hash is stored before the broadcast: wait until the node holds the transaction.
    await until(async () => (await rpc(anvil.rpcUrl, 'eth_getTransactionByHash', [hash])) !== null, 15_000, 'the broadcast');
    // Freeze the server so it cannot see the receipt, mine the block, then kill it.
    c.proc.kill('SIGSTOP');
    await rpc(anvil.rpcUrl, 'evm_mine');
    const receipt = await rpc<{ status: Hex } | null>(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash]);
    expect(receipt?.status).toBe('0x1');
    await kill(c);
    expect(await submitted).toBeInstanceOf(Error);
    expect((await loggedByKey(dataDir, 'crash-mined'))?.state).toBe('signed');

    s = await startTestServer({ dataDir, keys: keys(), chain: true });
    expect(await minedFrom(s, address)).toBe(mined + 1);
    expect((await portOf(s).getTransaction(hash))?.nonce).toBe(mined);
    expect((await loggedByKey(dataDir, 'crash-mined'))?.state).toBe('done');
    // Announced once, with the hash that is on chain.
    const frames = await allEvents(s, 'default', keys().live);
    expect(frames.filter((f) => f.event === 'tx' && f.data.hash === hash)).toHaveLength(1);
    const retry = await call(s.url, 'POST', '/v1/wallet/intent', {
      key: keys().live,
      idempotencyKey: 'crash-mined',
      body: { do: 'wrap 0.001 ETH' },
    });
    expect(retry.json).toMatchObject({ status: 'done', tx: hash, block: Number((await portOf(s).getTransaction(hash))?.block) });
    expect(await minedFrom(s, address)).toBe(mined + 1);
  });

  it('the RPC failing between the approval and the swap: a retry completes the swap once, never reports done without it', async () => {
    if (!s) s = await startTestServer({ dataDir, keys: keys(), chain: true });
    const srv = s;
    const a = await newAccount(srv, 'split');
    await putPolicy(srv, a.key, OPEN_POLICY);
    const port = portOf(srv);
    const mined = await minedFrom(srv, a.address);
    const before = await balances(srv, a.address);
    const prepare = port.prepareTransaction;
    let signs = 0;
    port.prepareTransaction = async (...args) => {
      if (++signs === 2) throw new chainLayer.ChainUnavailableError('injected: the RPC went away after the approval');
      return prepare(...args);
    };
    let failed: Awaited<ReturnType<typeof call>>;
    try {
      failed = await call(srv.url, 'POST', '/v1/wallet/intent', {
        key: a.key,
        idempotencyKey: 'split-1',
        body: { do: 'swap 5 USDC for WETH' },
      });
    } finally {
      port.prepareTransaction = prepare;
    }
    expect([failed.status, failed.json.type]).toEqual([503, 'chain_unavailable']);
    expect(await minedFrom(srv, a.address)).toBe(mined + 1); // the approval went out

    const retry = await call(srv.url, 'POST', '/v1/wallet/intent', {
      key: a.key,
      idempotencyKey: 'split-1',
      body: { do: 'swap 5 USDC for WETH' },
    });
    expect(retry.status, retry.text).toBe(200);
    const tx = await port.getTransaction(retry.json.tx);
    expect(tx?.to).toBe(port.tokenList.dex.router); // the swap, not the approval
    expect(await minedFrom(srv, a.address)).toBe(mined + 2);
    const after = await balances(srv, a.address);
    expect((after.USDC as bigint) - (before.USDC as bigint)).toBe(-units('5', 6));
    expect((after.WETH as bigint) > (before.WETH as bigint)).toBe(true);
    // Once more: still the same answer, still nothing new on chain.
    const again = await call(srv.url, 'POST', '/v1/wallet/intent', {
      key: a.key,
      idempotencyKey: 'split-1',
      body: { do: 'swap 5 USDC for WETH' },
    });
    expect(again.json.tx).toBe(retry.json.tx);
    expect(await minedFrom(srv, a.address)).toBe(mined + 2);
  });
});
