// One commit for several store operations (StorePort.atomically). A unit of work is a value:
// `atomically(async (unit) => …)` hands its callback the transaction, and only what is given
// that value joins it (as postgres.js `sql.begin(sql => …)` and Kysely's `trx` do). Nothing
// joins a transaction because of the async context it happens to run in: work a unit starts
// and does not await, a lock holder queued behind it, a timer it arms, all go to the pool.
// Only what never waits on anything but the database belongs inside: a transaction must not
// stay open across a chain call.
//
// What must not be seen before the unit commits (a stream's wake-up, a cache drop, a prune)
// goes to the unit's `afterCommit`: it runs once COMMIT has answered, never for a unit rolled
// back. There is one unit of work per pool (`unitOfWorkOn`), so every part on a server's pool
// shares it: what a part wants carried by whatever transaction commits next (the request-rate
// counts, cluster/postgres/request-rates.ts) it hands to `beforeCommit`, and a write request
// still commits once.
import type postgres from 'postgres';
import { PresenceError } from '../../errors/presence-error';
import { sessionLost } from './database';

/** Statements on the pool, or inside one transaction. */
export type Statements = postgres.Sql | postgres.TransactionSql;

/** An open unit of work: its transaction, and what runs once it commits. */
export type Unit = {
  readonly sql: postgres.TransactionSql;
  /** Runs `fn` once this unit has committed; never when it rolls back. */
  afterCommit(fn: () => void): void;
};

/**
 * Where a store operation sends its statements: `sql` for one statement, `begin` for several
 * that must commit together — a unit of its own on the pool, or the unit the operation was
 * handed (it then commits with that unit).
 */
export type Runner = {
  readonly sql: Statements;
  begin<T>(fn: (tx: postgres.TransactionSql) => Promise<T>): Promise<T>;
};

/**
 * Runs inside each unit's transaction (given it) after its work, before COMMIT; answers how to
 * settle once the outcome is known (true: committed), or nothing when it had nothing to write.
 */
export type CommitHook = (tx: postgres.TransactionSql) => Promise<((committed: boolean) => void) | undefined>;

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

/** A COMMIT answered ROLLBACK: a statement of the unit failed (its error may have been swallowed). */
const rolledBack = () =>
  new PresenceError('store_unavailable', 'the transaction was rolled back at COMMIT: one of its statements failed', { retryAfter: 1 });

/**
 * Runs every one of `effects`, each whatever the others did; rethrows the first failure after
 * all have run (an effect that throws is a bug: its unit has committed all the same).
 */
export function runAll(effects: readonly (() => void)[]): void {
  let failed: { e: unknown } | null = null;
  for (const f of effects) {
    try {
      f();
    } catch (e) {
      failed ??= { e };
    }
  }
  if (failed) throw failed.e;
}

function createUnitOfWork(pool: postgres.Sql) {
  const hooks = new Set<CommitHook>();

  /**
   * Runs `fn` with a transaction of its own. The transaction is a reserved connection with
   * BEGIN sent but not waited for: the unit's first statement travels right behind it, so
   * BEGIN costs no round trip of its own (the driver's `begin` waits for it, one round trip
   * more on every write). A statement that failed aborts the transaction, and a COMMIT then
   * answers ROLLBACK: that is a failure here, even when `fn` swallowed the statement's error.
   */
  async function atomically<T>(fn: (unit: Unit) => Promise<T>): Promise<T> {
    const conn = await pool.reserve();
    const tx = conn as unknown as postgres.TransactionSql;
    const after: (() => void)[] = [];
    let open = true;
    const unit: Unit = {
      sql: tx,
      afterCommit(f) {
        // A unit's value kept past its end: what it asks for can no longer wait for a commit.
        if (!open) throw new Error('afterCommit on a unit of work that has ended');
        after.push(f);
      },
    };
    const settling: ((committed: boolean) => void)[] = [];
    let lost = false;
    let value: T;
    try {
      const begin = conn.unsafe('BEGIN');
      begin.catch(() => undefined); // sends it; its failure fails what follows on the connection
      value = await fn(unit);
      for (const h of hooks) {
        const s = await h(tx);
        if (s) settling.push(s);
      }
      await begin;
      open = false;
      const committed = await conn.unsafe('COMMIT');
      if (committed.command !== 'COMMIT') throw rolledBack();
    } catch (e) {
      open = false;
      // The work's failure may be the store's mapping of the driver's (store_unavailable, with the driver's as its cause).
      lost = sessionLost(e) || sessionLost((e as { cause?: unknown } | null)?.cause);
      if (!lost) await conn.unsafe('ROLLBACK').catch((r: unknown) => (lost = sessionLost(r)));
      for (const s of settling) s(false);
      throw e;
    } finally {
      open = false;
      // A connection that is gone is not handed back: the pool already counts it closed.
      if (!lost) conn.release();
    }
    for (const s of settling) s(true);
    // Committed: what waited for it runs now (a rolled-back unit's never runs).
    runAll(after);
    return value;
  }

  /** Operations on the pool: each statement commits alone; `begin` opens a unit of its own (with the hooks). */
  const onPool: Runner = { sql: pool, begin: (fn) => atomically((u) => fn(u.sql)) };

  return {
    /** The pool itself: statements outside any unit. */
    pool,
    onPool,
    /** Operations handed `unit`: every statement, and every `begin`, runs in its transaction. */
    within: (unit: Unit): Runner => ({ sql: unit.sql, begin: (fn) => fn(unit.sql) }),
    /** Adds a hook to every unit's commit; answers a function that removes it. */
    beforeCommit(hook: CommitHook): () => void {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
    atomically,
  };
}
