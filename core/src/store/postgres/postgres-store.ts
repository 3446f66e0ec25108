// The store port on PostgreSQL: what lets several servers share one deployment. Same
// semantics as the embedded store, made to hold across connections and servers:
// - an answered write is committed (every operation is one statement or one transaction);
// - `update*` read the row `FOR UPDATE` inside a transaction, run the updater, write it back:
//   concurrent updaters of one record queue on its row lock and none is lost;
// - `appendEvent` / `appendThread` bump a per-account counter row and insert in ONE
//   statement, so ids are strictly increasing without gaps and commit in id order;
// - `transitionIntent` is compare-and-set on the record's stored text;
// - `redeemLink` is a single compare-and-set UPDATE;
// - an event append NOTIFYs `presence_events` in its own statement (sent at commit), the
//   wake-up of every server's live streams; a key update `presence_keys` (caches, cluster/postgres/cluster.ts).
// Records are kept whole as `json` (see migrations/0001_init.sql for why not jsonb) beside the
// columns queries need, and validated with the zod schemas of documents.ts on the way out,
// as the embedded store validates what it loads. Database failures become 503
// `store_unavailable`; an updater's own error passes through unchanged.
//
// One module per record family (`<family>-rows.ts`, each implementing its port); this one
// composes them, on the pool or on a unit of work.
//
// Driver: `postgres` (porsager). Maintained, no dependencies, typed; tagged templates make
// every value a bound parameter; `sql.begin` checks a connection out for the transaction and
// always returns it; and it has LISTEN/NOTIFY with reconnection built in, which the
// cross-server event fan-out will need. (`pg` needs separate types, manual client check-out
// for transactions and a hand-rolled reconnecting listener.)
import type { Keystore } from '../../keystore/keystore';
import { createSealedAnswers } from '../sealed-answers';
import type { SharedStore, StoreOps } from '../store-port';
import { accountsRows } from './accounts-rows';
import { type DatabaseSource, useDatabase } from './database';
import { mappingStoreErrors, toStoreError } from './database-error';
import { eventsRows } from './events-rows';
import { idempotencyRows } from './idempotency-rows';
import { intentsRows } from './intents-rows';
import { keysRows } from './keys-rows';
import { linksRows } from './links-rows';
import { memoryRows } from './memory-rows';
import { migrate } from './migrate';
import { standingRows } from './standing-rows';
import { threadRows } from './thread-rows';
import { type Runner, unitOfWorkOn } from './unit-of-work';
import { walletsRows } from './wallets-rows';

export type PostgresStoreOptions = DatabaseSource & {
  /** Seals stored Idempotency-Key answers at rest; without it the store refuses to keep answers. */
  keystore?: Keystore;
  /** With a URL: connections this store may open (default 10). */
  max?: number;
  /** Apply pending migrations before opening (the default). */
  migrate?: boolean;
};

export async function createPostgresStore(options: PostgresStoreOptions): Promise<SharedStore> {
  const { keystore, max = 10, migrate: apply = true, ...from } = options;
  try {
    if (apply) await migrate('sql' in from ? from.sql : from.url);
  } catch (e) {
    throw toStoreError(e, 'migrate');
  }
  const { sql: pool, end } = useDatabase(from, max);
  const unitOfWork = unitOfWorkOn(pool);
  const answers = createSealedAnswers(keystore);

  /**
   * The operations as they run on `run`: the pool (each commits alone; several statements that
   * must commit together open a unit of their own), or a unit of work it was handed.
   */
  const opsOn = (run: Runner): StoreOps => {
    const ops: StoreOps = {
      ...accountsRows(run),
      ...keysRows(run),
      ...memoryRows(run),
      ...eventsRows(run),
      ...idempotencyRows(run, answers),
      ...walletsRows(run),
      ...intentsRows(run),
      ...threadRows(run),
      ...standingRows(run),
      ...linksRows(run),
    };
    // Every operation maps the database's failures to store_unavailable in one place.
    return mappingStoreErrors(ops, { retryReads: run === unitOfWork.onPool });
  };

  const root = opsOn(unitOfWork.onPool);
  return {
    sharing: 'shared',
    ...root,
    async atomically(fn) {
      try {
        return await unitOfWork.atomically((unit) => fn({ ...opsOn(unitOfWork.within(unit)), afterCommit: unit.afterCommit }));
      } catch (e) {
        throw toStoreError(e, 'a unit of work');
      }
    },
    async close() {
      await end(); // on the server's pool, its owner ends it (and so drains what is in flight)
    },
  };
}
