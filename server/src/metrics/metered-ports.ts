// The store and chain ports, timed for /metrics: every store write (the operations that
// change what is kept; reads are not the latency worth watching) and every asynchronous
// chain call (each is one JSON-RPC round trip or one batch of them; waitForReceipt spans
// the polls until the receipt). Core gets the wrapped ports and never knows.
import type { ChainPort, StorePort } from '@presence/core';
import type { Metrics } from './metrics';
import { timed } from './timed';

const STORE_WRITES = new Set<string>([
  'createAccount',
  'updateAccount',
  'insertKey',
  'updateKey',
  'changeMemory',
  'appendEvent',
  'pruneEvents',
  'pruneEventsOlderThan',
  'putIdempotencyRecord',
  'pruneIdempotency',
  'createWallet',
  'markWalletFunded',
  'createIntent',
  'transitionIntent',
  'appendThread',
  'putStanding',
  'updateStanding',
  'putLink',
  'redeemLink',
] satisfies (keyof StorePort)[]);

export const meteredStore = <S extends StorePort>(store: S, metrics: Metrics): S =>
  timed(store, metrics.storeWrite, (name) => STORE_WRITES.has(name));

export const meteredChain = (chain: ChainPort, metrics: Metrics): ChainPort => timed(chain, metrics.chainCall, () => true);
