// A store with some of its operations changed (counted, wrapped, followed by a cache drop) —
// on the store itself and on every unit of work it hands out, so a write made in a unit is
// changed as one made alone. Spreading a store and replacing a method misses the second: the
// unit's operations are the inner store's.
import type { StoreOps, StorePort, StoreTx } from './store-port';

/** `afterCommit` of a call made on the store itself: it has committed when it resolves. */
const atOnce: StoreTx['afterCommit'] = (fn) => fn();

export function withOps<S extends StorePort>(
  store: S,
  change: (ops: StoreOps, afterCommit: StoreTx['afterCommit']) => Partial<StoreOps>,
): S {
  return {
    ...store,
    ...change(store, atOnce),
    atomically: (fn) => store.atomically((tx) => fn({ ...tx, ...change(tx, tx.afterCommit) })),
  };
}
