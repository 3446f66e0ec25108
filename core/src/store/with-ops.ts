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
    ...forwarding(store),
    ...change(store, atOnce),
    atomically: (fn) => store.atomically((tx) => fn({ ...tx, ...change(tx, tx.afterCommit) })),
  };
}

/**
 * The store's own operations, each looked up on it when called rather than copied when
 * wrapped: the wrapper stays a view of the store, so an operation replaced on the store later
 * (a test cutting a write short) is the one the wrapper runs.
 */
function forwarding<S extends object>(store: S): S {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    out[name] =
      typeof value === 'function'
        ? (...args: unknown[]) => (store as Record<string, (...a: unknown[]) => unknown>)[name]?.(...args)
        : value;
  }
  return out as S;
}
