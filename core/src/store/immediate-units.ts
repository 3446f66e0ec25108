// The unit of work of a store whose every write is durable and visible once it resolves (the
// embedded store, the test keys' overlay): there is no transaction to join, so a unit is the
// store's own operations, and what waits for its commit runs at once — the write it follows
// has already committed.
import type { StoreOps, StorePort, StoreTx } from './store-port';

export function immediateUnits(ops: StoreOps): StorePort['atomically'] {
  const tx: StoreTx = { ...ops, afterCommit: (fn) => fn() };
  return (fn) => fn(tx);
}
