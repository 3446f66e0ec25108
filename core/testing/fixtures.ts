// Records and harnesses the store contract is written with: small, valid documents of each
// kind, and what an adapter's test hands the contract (a fresh store, peers on the same data,
// a reopen).
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach } from 'vitest';
import { createKeystore } from '../src/keystore/keystore';
import type {
  AccountRecord,
  IdempotencyRecord,
  IntentRecord,
  KeyRecord,
  LinkRecord,
  MemoryEntry,
  NewThreadEntry,
  StandingRecord,
  WalletRecord,
} from '../src/store/documents';
import type { StorePort } from '../src/store/store-port';

export const intentRecord = (id: string, at: number, patch: Partial<IntentRecord> = {}): IntentRecord => ({
  id,
  account_id: 'a',
  source: 'api',
  idempotency_key: null,
  text: 'wrap 1 ETH',
  action: 'wrap',
  summary: 'wrap 1 ETH',
  amount: '1 ETH',
  value_usd: '0',
  tokens: ['ETH', 'WETH'],
  to: null,
  quote_block: 1,
  steps: [],
  state: 'executing',
  confirm_id: null,
  expires_at: null,
  txs: [],
  block: null,
  error: null,
  context: null,
  created_at: at,
  updated_at: at,
  executed_at: null,
  ...patch,
});

export type StoreHarness = {
  /** The store under test, on fresh, empty data. */
  store: StorePort;
  /** `n` handles on the same data, as `n` servers would hold them. */
  peers(n: number): Promise<StorePort[]>;
  /** Closes every handle and opens the store again on the same data. */
  reopen(): Promise<StorePort>;
  /** Closes every handle and removes the data. */
  close(): Promise<void>;
};

/** What an adapter's test provides: a fresh harness per test, sealing answers under `keystore`. */
export type OpenStoreHarness = (keystore: ReturnType<typeof createKeystore>) => Promise<StoreHarness>;

/**
 * A contract suite's store: a fresh one from the adapter's harness before each test of the
 * describe block (handed to `use`), closed after it; one keystore for the whole block.
 */
export function freshStoreEachTest(open: OpenStoreHarness, use: (h: StoreHarness) => void) {
  const keystore = createKeystore(randomBytes(32));
  let h: StoreHarness;
  beforeEach(async () => {
    h = await open(keystore);
    use(h);
  });
  afterEach(async () => {
    await h.close();
  });
}

export const account = (id: string, name = id): AccountRecord => ({
  id,
  name,
  created_at: new Date(0).toISOString(),
  presence: { name: 'p', model: 'local', preferences: { n: 0 } },
  policy: null,
});
export const apiKey = (id: string, accountId: string, hashes: string[]): KeyRecord => ({
  id,
  account_id: accountId,
  kind: 'live',
  name: id,
  scopes: ['talk'],
  secrets: hashes.map((hash, i) => ({ hash, last4: hash.slice(-4), valid_until: i < hashes.length - 1 ? 1000 : null })),
  state: 'active',
  created_at: new Date(0).toISOString(),
  last_used_at: null,
  revoked_at: null,
});
export const memo = (key: string, note = ''): MemoryEntry => ({
  key,
  tier: 'pinned',
  pinned_by: 'user',
  weight: 1,
  note,
  touches: 1,
  last_seen: 0,
});
export const answer = (key: string, created_at: number, body = '{"ok":true}'): IdempotencyRecord => ({
  key,
  fingerprint: `fp-${key}`,
  status: 201,
  headers: { 'content-type': 'application/json', location: '/v1/x' },
  body,
  created_at,
});
export const wallet = (accountId: string, address: string): WalletRecord => ({
  account_id: accountId,
  address,
  key: { iv: 'aXY=', tag: 'dGFn', data: address },
  created_at: new Date(0).toISOString(),
  funded: false,
});
export const turn = (user: string, at = 1): NewThreadEntry => ({
  kind: 'turn',
  at,
  user,
  reply: `re: ${user}`,
  used: [{ tool: 'remember', args: { key: 'topic:x' } }],
  touched: ['topic:x'],
  acted: false,
  tx: null,
  confirm_id: null,
  idempotency_key: null,
});
/** A standing intent for store tests (a price trigger unless `patch` says otherwise). */
export const standing = (accountId: string, id: string, patch: Partial<StandingRecord> = {}): StandingRecord => ({
  id,
  account_id: accountId,
  text: 'tell me when WETH is below 2500',
  trigger: { kind: 'price', token: 'WETH', op: 'below', threshold_usd: '2500' },
  action: { kind: 'notify' },
  may_act: false,
  armed: true,
  next_at: null,
  fired_count: 0,
  last_fired_at: null,
  state: 'active',
  created_at: 1,
  created_by: null,
  pending: [],
  ...patch,
});
export const link = (hash: string, expires_at: number): LinkRecord => ({
  hash,
  account_id: 'a',
  scopes: ['talk'],
  created_at: 0,
  expires_at,
  redeemed_at: null,
});
export const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);
/** Runs `each` for every (peer, i) pair at once: the writes of `peers` servers interleaved. */
export const fanOut = <T>(peers: StorePort[], perPeer: number, each: (store: StorePort, i: number) => Promise<T>) =>
  Promise.all(peers.flatMap((p, k) => range(perPeer, 0).map((i) => each(p, k * perPeer + i))));
