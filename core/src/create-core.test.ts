// Wiring that cannot work does not compile (DESIGN.md, "Transactions and side effects"): a
// store several servers share is served only with the cluster port. Without it the events log
// would deliver in-process under a lock taken inside units of work that hold the account's
// counter row, and two writers of one account would wait for each other for ever. These are
// type assertions, checked by `npm run typecheck` (an @ts-expect-error that stops erring fails it).
import { describe, expectTypeOf, it } from 'vitest';
import type { ClusterPort } from './cluster/cluster-port';
import { type CoreOptions, createCore } from './create-core';
import type { EmbeddedStore, SharedStore } from './store/store-port';

const base = { clock: { now: () => 0 }, rateLimit: { limit: 1, windowMs: 1 } };
type Base = typeof base;

describe('core wiring', () => {
  it('a shared store without the cluster port, or an embedded one with it, is a type error', () => {
    expectTypeOf<Base & { store: EmbeddedStore }>().toExtend<CoreOptions>();
    expectTypeOf<Base & { store: SharedStore; cluster: ClusterPort }>().toExtend<CoreOptions>();
    expectTypeOf<Base & { store: SharedStore }>().not.toExtend<CoreOptions>();
    expectTypeOf<Base & { store: EmbeddedStore; cluster: ClusterPort }>().not.toExtend<CoreOptions>();
    // Never called: what matters is that the call does not compile.
    // @ts-expect-error a shared store needs the cluster port
    const wrong = (shared: SharedStore) => createCore({ ...base, store: shared });
    expectTypeOf(wrong).toBeFunction();
  });
});
