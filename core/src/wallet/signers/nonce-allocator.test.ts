// Nonces a batch at a time, on a real devnet and a temporary lowdb store, through the real
// executor: steps queued while a wallet's lock is held are signed in one batch, their records
// stored in one unit of work (StorePort.atomically: one commit on PostgreSQL) before the
// first of them is broadcast, at consecutive nonces; a claim whose intent moved on, or whose
// broadcast the node refuses, leaves no gap (the ones behind it are signed again); a failed
// write sends nothing of its batch. The store is wrapped to see which unit of work each record
// was written in; the lock is held by the test while steps queue.
import { type Address, parseEther } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DevnetCore, startDevnetCore } from '../../../testing/devnet-core-fixture';
import { intentRecord } from '../../../testing/fixtures';
import { TransactionRejectedError } from '../../chain/errors';
import { createManualClock } from '../../clock/clock';
import { createLocalLocks } from '../../concurrency/cluster-locks';
import { createIntentExecutor, type Executed, type IntentExecutor } from '../../intents/intent-executor';
import type { IntentRecord } from '../../store/documents';
import type { StoreOps, StorePort } from '../../store/store-port';
import { createNonceAllocator, type NonceAllocator } from './nonce-allocator';

const clock = createManualClock(Date.parse('2026-08-20T06:00:00Z'));
const locks = createLocalLocks();
let t: DevnetCore;
let executor: IntentExecutor;
let nonces: NonceAllocator;

let units = 0;
let open = 0;
/** Every transition, with the unit it was written in. */
const transitions: { id: string; to: string; unit: number | undefined }[] = [];
/** Called for each read made inside a unit of work (the claims' checks). */
let onCheck: (accountId: string, id: string) => Promise<void> = async () => undefined;
/** Called before each transition (it may throw, as a failed write). */
let onTransition: (to: string) => void = () => undefined;

/** The store with its units numbered, and each check and transition seen with the unit it was made in (if any). */
function watched<S extends StorePort>(store: S): S {
  const watch = (ops: StoreOps, inUnit: number | undefined): Partial<StoreOps> => ({
    async getIntent(accountId, id) {
      if (inUnit !== undefined) await onCheck(accountId, id);
      return ops.getIntent(accountId, id);
    },
    async transitionIntent(accountId, id, from, to, patch) {
      onTransition(to);
      const next = await ops.transitionIntent(accountId, id, from, to, patch);
      if (next) transitions.push({ id, to, unit: inUnit });
      return next;
    },
  });
  return {
    ...store,
    ...watch(store, undefined),
    async atomically(fn) {
      open++;
      const n = ++units;
      try {
        return await store.atomically((tx) => fn({ ...tx, ...watch(tx, n) }));
      } finally {
        open--;
      }
    },
  };
}

beforeAll(async () => {
  t = await startDevnetCore(clock, 'nonces', watched);
  nonces = createNonceAllocator(t.chain, locks);
  executor = createIntentExecutor({ chain: t.chain, wallets: t.wallet.wallets, nonces, clock });
});
afterEach(() => {
  t.restore();
  transitions.length = 0;
  onCheck = async () => undefined;
  onTransition = () => undefined;
});
afterAll(async () => {
  await t?.close();
});

const wrap = (eth: string) => {
  const tx = t.chain.buildWrap(parseEther(eth));
  return { to: tx.to, data: tx.data, value: tx.value.toString(), label: `wrap ${eth}` };
};
let n = 0;

/**
 * `count` one-step intents of a fresh account, driven at once while the test holds the
 * wallet's nonce lock; the lock is let go once every drive has asked for a nonce (each asks
 * for gas and fees just before), so all of them wait in one batch.
 */
async function queued(name: string, count: number) {
  const a = await t.account(name);
  const mined = await t.mined(a.address);
  const rs: IntentRecord[] = [];
  for (let i = 0; i < count; i++) {
    const r = intentRecord(`in_nonce${++n}`, clock.now(), { account_id: a.id, steps: [wrap('0.001')] });
    await t.store.createIntent(r);
    rs.push(r);
  }
  const port = t.chain as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const prepare = port.prepareTransaction as (...args: unknown[]) => Promise<unknown>;
  let asked = 0;
  port.prepareTransaction = (...args: unknown[]) => {
    asked++;
    return prepare(...args);
  };
  let letGo!: () => void;
  const held = new Promise<void>((r) => (letGo = r));
  const holding = locks.withLock(`nonce:${a.address.toLowerCase()}`, () => held);
  const drives = rs.map((r) => executor.drive(t.store, r));
  for (const d of drives) d.catch(() => undefined);
  while (asked < count) await new Promise((r) => setTimeout(r, 5));
  port.prepareTransaction = prepare;
  letGo();
  await holding;
  return { a, mined, rs, settled: await Promise.allSettled(drives) };
}

const executed = (s: PromiseSettledResult<Executed>[]) => s.flatMap((x) => (x.status === 'fulfilled' ? [x.value] : []));
const noncesOf = (done: Executed[]) => done.map((d) => d.record.txs[0]?.nonce as number).sort((x, y) => x - y);
const consecutive = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
/** Units of work that stored `signed` records, in order, each with how many it kept (signed, less put back in it). */
const signedUnits = () => {
  const byUnit = new Map<number | undefined, number>();
  for (const x of transitions) {
    const d = x.to === 'signed' ? 1 : x.to === 'executing' && byUnit.has(x.unit) ? -1 : 0;
    if (d !== 0) byUnit.set(x.unit, (byUnit.get(x.unit) ?? 0) + d);
  }
  return [...byUnit.entries()];
};

describe('nonces a batch at a time', () => {
  it('steps queued behind a hold are signed together: one unit of work for their records, committed before any broadcast', async () => {
    const real = t.chain.sendRaw;
    let sentWhileOpen = 0;
    t.chain.sendRaw = async (raw) => {
      if (open > 0) sentWhileOpen++;
      return real(raw);
    };
    const { a, mined, settled } = await queued('batch', 8);
    const done = executed(settled);
    expect(done).toHaveLength(8);
    // One unit of work (on PostgreSQL one transaction, one commit) for the eight records.
    expect(signedUnits()).toEqual([[expect.any(Number), 8]]);
    expect(sentWhileOpen).toBe(0);
    expect(noncesOf(done)).toEqual(consecutive(mined, 8));
    expect(await t.mined(a.address as Address)).toBe(mined + 8);
  });

  it('a step whose intent moved on while it waited takes no nonce: the steps before it go out, the ones behind it are signed again', async () => {
    let checks = 0;
    onCheck = async (accountId, id) => {
      // The third claim of the batch finds its intent ended by someone else.
      if (++checks === 3) await t.store.transitionIntent(accountId, id, ['executing'], 'failed', { error: 'ended elsewhere' });
    };
    const { a, mined, rs, settled } = await queued('moved', 5);
    const done = executed(settled);
    expect(settled.filter((s) => s.status === 'rejected')).toHaveLength(1);
    expect(done).toHaveLength(4);
    expect(noncesOf(done)).toEqual(consecutive(mined, 4));
    expect(await t.mined(a.address)).toBe(mined + 4);
    // Two kept by the batch (the two behind it, recorded alongside, put back in the same unit), the two behind in a batch of their own.
    expect(signedUnits().map(([, count]) => count)).toEqual([2, 2]);
    const ended = await Promise.all(rs.map((r) => t.store.getIntent(r.account_id, r.id)));
    expect(ended.filter((r) => r?.state === 'failed').map((r) => r?.txs)).toEqual([[]]);
  });

  it('a broadcast the node refuses fails its intent; the ones behind it, never sent, are put back and signed again', async () => {
    const real = t.chain.sendRaw;
    let sends = 0;
    t.chain.sendRaw = async (raw) => {
      if (++sends === 2) throw new TransactionRejectedError('injected: refused');
      return real(raw);
    };
    const { a, mined, rs, settled } = await queued('refused', 5);
    const done = executed(settled);
    expect(done).toHaveLength(4);
    expect(noncesOf(done)).toEqual(consecutive(mined, 4));
    expect(await t.mined(a.address)).toBe(mined + 4);
    // The three behind the refused one went back to `executing` (no transaction) before signing again.
    expect(transitions.filter((x) => x.to === 'executing')).toHaveLength(3);
    const records = await Promise.all(rs.map((r) => t.store.getIntent(r.account_id, r.id)));
    const failed = records.filter((r) => r?.state === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.error).toContain('injected: refused');
  });

  it('a write that fails fails the whole batch: nothing of it is broadcast', async () => {
    const real = t.chain.sendRaw;
    let sent = 0;
    t.chain.sendRaw = async (raw) => {
      sent++;
      return real(raw);
    };
    let signing = 0;
    onTransition = (to) => {
      if (to === 'signed' && ++signing === 2) throw new Error('injected: the disk is full');
    };
    const { a, mined, settled } = await queued('diskfull', 4);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(sent).toBe(0);
    expect(await t.mined(a.address)).toBe(mined);
  });
});

describe('a chain that lost its last blocks (the devnet restarted its anvil from a dump seconds old)', () => {
  const rpc = async (method: string, params: unknown[] = []) => {
    const res = await fetch(t.devnet.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  };
  const driveOne = async (accountId: string) => {
    const r = intentRecord(`in_nonce${++n}`, clock.now(), { account_id: accountId, steps: [wrap('0.001')] });
    await t.store.createIntent(r);
    return executor.drive(t.store, r);
  };

  it('after forget(), the next step is signed at the nonce the chain has now, not after the transactions it lost', async () => {
    const a = await t.account('rewound');
    const mined = await t.mined(a.address);
    const before = await rpc('evm_snapshot');
    // Two intents mined: this process now counts the wallet's next nonce as mined + 2.
    await driveOne(a.id);
    await driveOne(a.id);
    expect(await t.mined(a.address)).toBe(mined + 2);
    // The chain goes back to before them, as a restart from an older dump does.
    expect(await rpc('evm_revert', [before])).toBe(true);
    expect(await t.mined(a.address)).toBe(mined);
    // What the devnet's restart makes the wallet domain do (ChainRuntime.onRewind). Without it
    // the step is signed at mined + 2, which anvil queues behind the gap: no receipt, ever.
    nonces.forget();

    const done = await driveOne(a.id);
    expect(done.record.txs[0]?.nonce).toBe(mined);
    expect(await t.mined(a.address)).toBe(mined + 1);
  }, 120_000);
});
