// The store and chain ports, timed for /metrics: every store write (the operations that
// change what is kept; reads are not the latency worth watching) and every asynchronous
// chain call (each is one JSON-RPC round trip or one batch of them; waitForReceipt spans
// the polls until the receipt). Core gets the wrapped ports and never knows.
import { type ChainPort, STORE_WRITES, type StorePort } from '@presence/core';
import type { Metrics } from './metrics';
import { timed } from './timed';

const isWrite = (name: string) => STORE_WRITES.has(name);

/** The store with its writes timed, those made in a unit of work (on the unit handed out) included. */
export function meteredStore<S extends StorePort>(store: S, metrics: Metrics): S {
  const metered = timed(store, metrics.storeWrite, isWrite);
  metered.atomically = (fn) => store.atomically((tx) => fn(timed(tx, metrics.storeWrite, isWrite)));
  return metered;
}

export const meteredChain = (chain: ChainPort, metrics: Metrics): ChainPort => timed(chain, metrics.chainCall, () => true);
