// One commit for several store operations (StorePort.atomically): inside `atomically`, every
// statement the store issues runs in the one transaction, found through AsyncLocalStorage, so
// core's services keep calling the port as they always do and a pin's entry and its event
// commit together (one commit per write, DESIGN.md "Cost follows work"). Outside it, each
// operation is its own statement or transaction as before. Only what never waits on anything
// but the database belongs inside: a transaction must not stay open across a chain call.
import { AsyncLocalStorage } from 'node:async_hooks';
import type postgres from 'postgres';

type Unit = { tx: postgres.TransactionSql; open: boolean; after: (() => void)[] };

export function createUnitOfWork(sql: postgres.Sql) {
  const current = new AsyncLocalStorage<Unit>();
  // Work started inside a unit and not awaited by it (a prune, a wake-up) keeps its context
  // after the commit: it then goes to the pool, never to a finished transaction.
  const tx = () => {
    const u = current.getStore();
    return u?.open ? u.tx : undefined;
  };
  /**
   * `sql` as the store's operations use it: the open unit of work's transaction when there is
   * one, else the pool. `begin` inside a unit of work runs in it (its statements commit with it).
   */
  const db = new Proxy(sql, {
    apply(target, self, args) {
      return Reflect.apply((tx() ?? target) as unknown as (...a: unknown[]) => unknown, self, args);
    },
    get(target, name) {
      const open = tx();
      if (name === 'begin' && open) return (fn: (t: postgres.TransactionSql) => unknown) => fn(open);
      const v = Reflect.get(open ?? target, name);
      return typeof v === 'function' ? v.bind(open ?? target) : v;
    },
  }) as postgres.Sql;

  return {
    db,
    /** Runs `fn` once the open unit of work commits (at once outside one); never if it rolls back. */
    afterCommit(fn: () => void): void {
      const u = current.getStore();
      if (u?.open) u.after.push(fn);
      else fn();
    },
    /** Runs `fn` with every store statement in one transaction (joins one already open). */
    async atomically<T>(fn: () => Promise<T>): Promise<T> {
      if (tx()) return fn();
      let out: { value: T } | undefined;
      const unit: Partial<Unit> = { open: true, after: [] };
      try {
        await sql.begin((t) => {
          unit.tx = t;
          return current.run(unit as Unit, async () => {
            out = { value: await fn() };
          });
        });
      } finally {
        unit.open = false;
      }
      // Committed: what waited for it runs now (a rolled-back unit's never runs).
      for (const f of unit.after ?? []) f();
      return (out as { value: T }).value;
    },
  };
}
