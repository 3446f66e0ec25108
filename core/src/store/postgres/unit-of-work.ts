// One commit for several store operations (StorePort.atomically): inside `atomically`, every
// statement the store issues runs in the one transaction, found through AsyncLocalStorage, so
// core's services keep calling the port as they always do and a pin's entry and its event
// commit together (one commit per write, DESIGN.md "Cost follows work"). Outside it, each
// operation is its own statement or transaction as before. Only what never waits on anything
// but the database belongs inside: a transaction must not stay open across a chain call.
//
// There is one unit of work per pool (`unitOfWorkOn`), so every part on a server's pool shares
// it: what a part wants carried by whatever transaction commits next (the request-rate counts,
// request-rates.ts) it hands to `beforeCommit`, and a write request still commits once.
import { AsyncLocalStorage } from 'node:async_hooks';
import type postgres from 'postgres';
import { sessionLost } from './database';

type Unit = { tx: postgres.TransactionSql; open: boolean; after: (() => void)[] };

/**
 * Runs inside each unit's transaction after its work, before COMMIT; answers how to settle once
 * the outcome is known (true: committed), or nothing when it had nothing to write.
 */
export type CommitHook = () => Promise<((committed: boolean) => void) | undefined>;

export type UnitOfWork = ReturnType<typeof createUnitOfWork>;

const units = new WeakMap<postgres.Sql, UnitOfWork>();

/** The unit of work of `sql`'s pool, shared by every part using that pool. */
export function unitOfWorkOn(sql: postgres.Sql): UnitOfWork {
  let u = units.get(sql);
  if (!u) {
    u = createUnitOfWork(sql);
    units.set(sql, u);
  }
  return u;
}

function createUnitOfWork(sql: postgres.Sql) {
  const hooks = new Set<CommitHook>();
  const current = new AsyncLocalStorage<Unit>();
  // On Node 20 an enabled AsyncLocalStorage puts a hook on every promise the process makes, a
  // unit's or not (an authenticated read paid about a third of its time for it). It is enabled
  // only while some unit is open: the last one to close disables it, the next `run` enables it
  // again. Work a unit started and did not await then finds no unit, as it would find a closed
  // one: it goes to the pool.
  let opened = 0;
  // Work started inside a unit and not awaited by it (a prune, a wake-up) keeps its context
  // after the commit: it then goes to the pool, never to a finished transaction.
  const tx = () => {
    const u = current.getStore();
    return u?.open ? u.tx : undefined;
  };
  /**
   * Runs `fn` with every store statement in one transaction (joins one already open). The
   * transaction is a reserved connection with BEGIN sent but not waited for: the unit's first
   * statement travels right behind it, so BEGIN costs no round trip of its own (the driver's
   * `begin` waits for it, one round trip more on every write). A statement that failed aborts
   * the transaction, and a COMMIT then answers ROLLBACK: that is a failure here, even when
   * `fn` swallowed the statement's error.
   */
  async function atomically<T>(fn: () => Promise<T>): Promise<T> {
    if (tx()) return fn();
    const conn = await sql.reserve();
    opened++;
    const unit: Unit = { tx: conn as unknown as postgres.TransactionSql, open: true, after: [] };
    const settling: ((committed: boolean) => void)[] = [];
    let lost = false;
    let value: T;
    try {
      const begin = conn.unsafe('BEGIN');
      begin.catch(() => undefined); // sends it; its failure fails what follows on the connection
      value = await current.run(unit, async () => {
        const v = await fn();
        for (const h of hooks) {
          const s = await h();
          if (s) settling.push(s);
        }
        return v;
      });
      await begin;
      unit.open = false;
      const committed = await conn.unsafe('COMMIT');
      if (committed.command !== 'COMMIT') throw new Error('the transaction was rolled back at COMMIT: one of its statements failed');
    } catch (e) {
      unit.open = false;
      lost = sessionLost(e);
      if (!lost) await conn.unsafe('ROLLBACK').catch((r: unknown) => (lost = sessionLost(r)));
      for (const s of settling) s(false);
      throw e;
    } finally {
      unit.open = false;
      if (--opened === 0) current.disable();
      // A connection that is gone is not handed back: the pool already counts it closed.
      if (!lost) conn.release();
    }
    for (const s of settling) s(true);
    // Committed: what waited for it runs now (a rolled-back unit's never runs).
    for (const f of unit.after) f();
    return value;
  }

  /**
   * `sql` as the store's operations use it: the open unit of work's transaction when there is
   * one, else the pool. `begin` inside a unit of work runs in it (its statements commit with it);
   * outside one it starts a unit, so every transaction of the store carries the commit hooks.
   */
  const db = new Proxy(sql, {
    apply(target, self, args) {
      return Reflect.apply((tx() ?? target) as unknown as (...a: unknown[]) => unknown, self, args);
    },
    get(target, name) {
      const open = tx();
      if (name === 'begin') {
        if (open) return (fn: (t: postgres.TransactionSql) => unknown) => fn(open);
        // With options (an isolation level) it is a transaction of its own, without the hooks.
        return (...args: unknown[]) =>
          args.length === 1 && typeof args[0] === 'function'
            ? atomically(() => (args[0] as (t: postgres.TransactionSql) => Promise<unknown>)(tx() as postgres.TransactionSql))
            : Reflect.apply(target.begin, target, args);
      }
      const v = Reflect.get(open ?? target, name);
      return typeof v === 'function' ? v.bind(open ?? target) : v;
    },
  }) as postgres.Sql;

  return {
    db,
    /** The pool itself: statements that must never join a request's transaction. */
    pool: sql,
    /** Adds a hook to every unit's commit; answers a function that removes it. */
    beforeCommit(hook: CommitHook): () => void {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
    /** Runs `fn` once the open unit of work commits (at once outside one); never if it rolls back. */
    afterCommit(fn: () => void): void {
      const u = current.getStore();
      if (u?.open) u.after.push(fn);
      else fn();
    },
    atomically,
  };
}
