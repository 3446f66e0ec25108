// For tests: core wired as the server wires it — a temporary store (lowdb by default, or
// PostgreSQL on a throwaway cluster from scripts/postgres.ts), a real anvil devnet behind the
// viem chain port, a driven clock — plus what tests of the intent path keep asking: a fresh
// account under a policy, its events, its mined transaction count, and a chain outage
// injected into the real port for one call. One per test file (beforeAll): anvil starts in
// about a second, and fresh accounts keep tests apart (each gets its own funded wallet).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Devnet, startDevnet } from '@presence/devnet';
import type { KeyKind, PolicyDocument } from '@presence/protocol';
import type { Address } from 'viem';
import type { ChainPort } from '../src/chain/chain-port';
import { ChainUnavailableError } from '../src/chain/errors';
import { createViemChain } from '../src/chain/viem/viem-chain';
import type { ManualClock } from '../src/clock/clock';
import { type Core, createCore, type StoreWiring } from '../src/create-core';
import type { WalletDomain } from '../src/intents/wallet-domain';
import { accountCaller } from '../src/keys/caller';
import { createKeystore, type Keystore } from '../src/keystore/keystore';
import type { StoredEvent } from '../src/store/documents';
import { createLowdbStore } from '../src/store/lowdb/lowdb-store';
import type { StorePort } from '../src/store/store-port';

/** Lets anything through at once: no deny rules, caps far above any test's amounts. */
export const OPEN_POLICY: PolicyDocument = {
  per_tx_cap: '100000 USD',
  confirm_over: '100000 USD',
  daily_cap: '1000000 USD',
  deny: [],
  withdraw_allowlist: [],
  max_slippage_bps: 100,
  confirm_timeout_s: 600,
};

type Patchable = 'prepareTransaction' | 'signPrepared' | 'sendRaw' | 'waitForReceipt' | 'getTransaction' | 'nonceOf';

export type DevnetCore = {
  core: Core;
  wallet: WalletDomain;
  store: StorePort;
  /** SQL statements the store has sent so far (PostgreSQL); null where there is no SQL (lowdb). */
  statements(): number | null;
  devnet: Devnet;
  /** The very port core uses: `failNth` patches it in place, `restore` undoes that. */
  chain: ChainPort;
  /** A fresh account under `OPEN_POLICY` patched with `policy`; its wallet is made and funded now. */
  account(name: string, policy?: Partial<PolicyDocument>): Promise<{ id: string; address: Address }>;
  /** Every event of the account's channel for `mode`, oldest first. */
  events(accountId: string, mode?: KeyKind, type?: string): Promise<StoredEvent[]>;
  /** Transactions the account's wallet has had mined. */
  mined(address: Address): Promise<number>;
  /** The n-th call (1-based) from now of `method` fails as an RPC outage; the others go through. */
  failNth(method: Patchable, n?: number): void;
  restore(): void;
  close(): Promise<void>;
};

export type DevnetStoreKind = 'lowdb' | 'postgres';

type OpenedStore = {
  /** The store, and on PostgreSQL the cluster port a shared store is served with (as the server wires it). */
  wiring: StoreWiring;
  /** SQL statements the store has sent so far (PostgreSQL); null where there is no SQL (lowdb). */
  statements(): number | null;
  stop(): Promise<void>;
};

/** The store to build, and how to let go of what it holds beyond itself (a pool, a cluster). */
async function openStore(kind: DevnetStoreKind, dir: string, keystore: Keystore, clock: ManualClock): Promise<OpenedStore> {
  if (kind === 'lowdb') {
    const store = await createLowdbStore({ dataDir: dir, fsync: false, keystore });
    return { wiring: { store }, statements: () => null, stop: async () => undefined };
  }
  // Loaded only when asked for, so lowdb runs do not load the PostgreSQL binaries' wrapper.
  const [{ startPostgres }, { openDatabase }, { createPostgresStore }, { createPostgresCluster }] = await Promise.all([
    import('../../scripts/postgres'),
    import('../src/store/postgres/database'),
    import('../src/store/postgres/postgres-store'),
    import('../src/cluster/postgres/cluster'),
  ]);
  const pg = await startPostgres();
  // The pool is ours, so its statements can be counted: a store that answered a question
  // with a query per account would show there, behind one call through the port.
  let statements = 0;
  const sql = openDatabase(pg.url, { onStatement: () => statements++ });
  let cluster: { close(): Promise<void> } | null = null;
  const stop = async () => {
    await cluster?.close();
    await sql.end({ timeout: 5 });
    await pg.stop();
  };
  try {
    const store = await createPostgresStore({ sql, keystore });
    const shared = await createPostgresCluster({ sql, clock });
    cluster = shared;
    return { wiring: { store, cluster: shared }, statements: () => statements, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * `wrap` lets a test see core's calls to the store (e.g. count them) without changing them;
 * `kind` picks the store behind the port.
 */
export async function startDevnetCore(
  clock: ManualClock,
  prefix = 'core',
  wrap: <S extends StorePort>(store: S) => S = (s) => s,
  kind: DevnetStoreKind = 'lowdb',
): Promise<DevnetCore> {
  const dir = await mkdtemp(join(tmpdir(), `presence-${prefix}-`));
  const devnet = await startDevnet({ dataDir: dir });
  const keystore = createKeystore(randomBytes(32));
  let opened: OpenedStore;
  try {
    opened = await openStore(kind, dir, keystore, clock);
  } catch (e) {
    await devnet.stop();
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  // Wrapped as it is, so the wiring keeps its kind: a shared store goes with its cluster port.
  const wiring: StoreWiring = opened.wiring.cluster
    ? { store: wrap(opened.wiring.store), cluster: opened.wiring.cluster }
    : { store: wrap(opened.wiring.store) };
  const { store } = wiring;
  const chain = createViemChain({ rpcUrl: devnet.rpcUrl, tokenList: devnet.deployment, timeoutMs: 5_000 });
  const core = createCore({
    ...wiring,
    clock,
    rateLimit: { limit: 1_000_000, windowMs: 1_000 },
    chain: { runtime: { chain, tokenList: devnet.deployment, fund: (a) => devnet.fund(a) }, keystore },
  });
  const wallet = core.wallet as WalletDomain;
  const original: Partial<Record<Patchable, unknown>> = {};
  const port = chain as unknown as Record<Patchable, (...a: unknown[]) => Promise<unknown>>;
  return {
    core,
    wallet,
    store,
    statements: opened.statements,
    devnet,
    chain,
    async account(name, policy = {}) {
      await core.accounts.create(name);
      await core.policies.put(accountCaller(name), { ...OPEN_POLICY, ...policy });
      return { id: name, address: await wallet.wallets.address(name) };
    },
    async events(accountId, mode = 'live', type) {
      const all = await core.storeFor(mode).eventsAfter(accountId, 0, 100_000);
      return type ? all.filter((e) => e.type === type) : all;
    },
    mined: (address) => chain.nonceOf(address, 'latest'),
    failNth(method, n = 1) {
      if (!(method in original)) original[method] = port[method];
      const real = original[method] as (...a: unknown[]) => Promise<unknown>;
      let calls = 0;
      port[method] = async (...args: unknown[]) => {
        if (++calls === n) throw new ChainUnavailableError(`injected: the RPC went away during ${method}`);
        return real(...args);
      };
    },
    restore() {
      Object.assign(port, original);
      for (const k of Object.keys(original)) delete original[k as Patchable];
    },
    async close() {
      await core.standing.drain();
      await store.close();
      await opened.stop();
      await devnet.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
