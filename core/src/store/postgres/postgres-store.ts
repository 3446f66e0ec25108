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
// Driver: `postgres` (porsager). Maintained, no dependencies, typed; tagged templates make
// every value a bound parameter; `sql.begin` checks a connection out for the transaction and
// always returns it; and it has LISTEN/NOTIFY with reconnection built in, which the
// cross-server event fan-out will need. (`pg` needs separate types, manual client check-out
// for transactions and a hand-rolled reconnecting listener.)
import postgres from 'postgres';
import { PresenceError } from '../../errors/presence-error';
import type { Keystore } from '../../keystore/keystore';
import {
  AccountRecord,
  IntentRecord,
  KeyRecord,
  LinkRecord,
  StoredEvent,
  StoredIdempotencyRecord,
  ThreadEntry,
  WalletRecord,
} from '../documents';
import { createSealedAnswers } from '../sealed-answers';
import type { SharedStore, StoreOps } from '../store-port';
import { ACCOUNTS_CHANNEL, EVENTS_CHANNEL, KEYS_CHANNEL } from './channels';
import { type DatabaseSource, useDatabase } from './database';
import { mappingStoreErrors, toStoreError } from './database-error';
import { memoryRows } from './memory-rows';
import { migrate } from './migrate';
import { callerSays, type Doc, json } from './records';
import { standingRows } from './standing-rows';
import { type Runner, type Statements, unitOfWorkOn } from './unit-of-work';

export type PostgresStoreOptions = DatabaseSource & {
  /** Seals stored Idempotency-Key answers at rest; without it the store refuses to keep answers. */
  keystore?: Keystore;
  /** With a URL: connections this store may open (default 10). */
  max?: number;
  /** Apply pending migrations before opening (the default). */
  migrate?: boolean;
};

const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (e: unknown) => e instanceof postgres.PostgresError && e.code === UNIQUE_VIOLATION;

/** The columns an intent is looked up by, taken from the record each time it is written. */
export const intentColumns = (r: IntentRecord) => ({
  state: r.state,
  confirm_id: r.confirm_id,
  idempotency_key: r.idempotency_key,
  // When a spending record spent: executed, or (still in flight) its last change.
  spent_at: r.executed_at ?? r.updated_at,
  value_usd: r.value_usd,
  expires_at: r.expires_at,
});

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

  const insertIntent = (tx: Statements, r: IntentRecord) => {
    const c = intentColumns(r);
    return tx`INSERT INTO intents (account_id, id, state, confirm_id, idempotency_key, spent_at, value_usd, expires_at, doc)
      VALUES (${r.account_id}, ${r.id}, ${c.state}, ${c.confirm_id}, ${c.idempotency_key}, ${c.spent_at}, ${c.value_usd}, ${c.expires_at},
        ${json(r)}::text::json)`;
  };

  /**
   * The operations as they run on `run`: the pool (each commits alone; several statements that
   * must commit together open a unit of their own), or a unit of work it was handed.
   */
  const opsOn = (run: Runner): StoreOps => {
    const { sql, begin } = run;
    const ops: StoreOps = {
      async createAccount(account) {
        try {
          await sql`INSERT INTO accounts (id, doc) VALUES (${account.id}, ${json(account)}::text::json)`;
        } catch (e) {
          if (isUniqueViolation(e)) throw new PresenceError('conflict', `account ${account.id} exists`);
          throw e;
        }
      },
      async getAccount(id) {
        const [row] = await sql<Doc[]>`SELECT doc FROM accounts WHERE id = ${id}`;
        return row ? AccountRecord.parse(row.doc) : null;
      },
      async listAccounts() {
        const rows = await sql<Doc[]>`SELECT doc FROM accounts ORDER BY seq`;
        return rows.map((r) => AccountRecord.parse(r.doc));
      },
      async updateAccount(id, update) {
        return begin(async (tx) => {
          const [row] = await tx<Doc[]>`SELECT doc FROM accounts WHERE id = ${id} FOR UPDATE`;
          if (!row) return null;
          const next = callerSays(() => update(AccountRecord.parse(row.doc)));
          // Announced at commit: every server drops what it keeps of the account.
          await tx`UPDATE accounts SET doc = ${json(next)}::text::json WHERE id = ${id} RETURNING pg_notify(${ACCOUNTS_CHANNEL}, id)`;
          return next;
        });
      },

      async insertKey(key) {
        try {
          await sql`INSERT INTO api_keys (id, account_id, secret_hashes, doc)
          VALUES (${key.id}, ${key.account_id}, ${key.secrets.map((s) => s.hash)}::text[], ${json(key)}::text::json)`;
        } catch (e) {
          if (isUniqueViolation(e)) throw new PresenceError('conflict', `key ${key.id} exists`);
          throw e;
        }
      },
      async getKey(id) {
        const [row] = await sql<Doc[]>`SELECT doc FROM api_keys WHERE id = ${id}`;
        return row ? KeyRecord.parse(row.doc) : null;
      },
      async findKeyBySecretHash(hash) {
        const [row] = await sql<Doc[]>`SELECT doc FROM api_keys WHERE secret_hashes @> ARRAY[${hash}]::text[] LIMIT 1`;
        return row ? KeyRecord.parse(row.doc) : null;
      },
      async listKeys(accountId) {
        const rows = await sql<Doc[]>`SELECT doc FROM api_keys WHERE account_id = ${accountId} ORDER BY seq`;
        return rows.map((r) => KeyRecord.parse(r.doc));
      },
      async updateKey(id, update) {
        return begin(async (tx) => {
          const [row] = await tx<Doc[]>`SELECT doc FROM api_keys WHERE id = ${id} FOR UPDATE`;
          if (!row) return null;
          const next = callerSays(() => update(KeyRecord.parse(row.doc)));
          await tx`UPDATE api_keys SET doc = ${json(next)}::text::json, secret_hashes = ${next.secrets.map((s) => s.hash)}::text[]
          WHERE id = ${id} RETURNING pg_notify(${KEYS_CHANNEL}, id)`;
          return next;
        });
      },

      ...memoryRows(run),

      async appendEvent(accountId, event) {
        const [row] = await sql<{ id: string }[]>`
        WITH next AS (
          INSERT INTO account_seq AS s (account_id, events) VALUES (${accountId}, 1)
          ON CONFLICT (account_id) DO UPDATE SET events = s.events + 1
          RETURNING events
        ), appended AS (
          INSERT INTO events (account_id, id, type, at, data)
          SELECT ${accountId}::text, events, ${event.type}::text, ${event.at}::float8, ${json(event.data)}::text::json FROM next
          RETURNING id
        )
        -- The wake-up for every server's streams (cluster/postgres/cluster.ts), sent at commit: in this statement.
        SELECT id, pg_notify(${EVENTS_CHANNEL}, ${accountId}::text || ':' || id)::text AS notified FROM appended`;
        return { id: Number(row?.id), ...event };
      },
      async eventsAfter(accountId, afterId, limit) {
        const rows = await sql`SELECT id, type, data, at FROM events
        WHERE account_id = ${accountId} AND id > ${afterId} ORDER BY id LIMIT ${limit}`;
        return rows.map((r) => StoredEvent.parse({ id: Number(r.id), type: r.type, data: r.data, at: r.at }));
      },
      async eventBounds(accountId) {
        const [row] = await sql<{ oldest: string | null; latest: string | null }[]>`SELECT
        (SELECT min(id) FROM events WHERE account_id = ${accountId}) AS oldest,
        (SELECT events FROM account_seq WHERE account_id = ${accountId}) AS latest`;
        return { oldest: row?.oldest == null ? null : Number(row.oldest), latest: Number(row?.latest ?? 0) };
      },
      async pruneEvents(accountId, keepLast, olderThan) {
        // What the embedded store cuts: the prefix beyond the newest `keepLast`, extended over
        // the stale events that follow it, never the newest event. All by the primary key.
        const result = await sql`
        WITH beyond AS (
          SELECT id FROM events WHERE account_id = ${accountId} ORDER BY id DESC OFFSET ${keepLast} LIMIT 1
        ), fresh AS (
          SELECT min(id) AS id FROM events
          WHERE account_id = ${accountId} AND id > COALESCE((SELECT id FROM beyond), 0) AND at >= ${olderThan}
        )
        DELETE FROM events
        WHERE account_id = ${accountId}
          AND id < LEAST((SELECT id FROM fresh), (SELECT max(id) FROM events WHERE account_id = ${accountId}))`;
        return result.count;
      },

      async pruneEventsOlderThan(olderThan) {
        // One range scan of events_at, in bounded batches so no statement holds locks for long.
        // Ids come from account_seq, so deleting an account's every event never restarts them.
        let dropped = 0;
        for (;;) {
          const r = await sql`DELETE FROM events WHERE ctid = ANY(ARRAY(SELECT ctid FROM events WHERE at < ${olderThan} LIMIT 5000))`;
          dropped += r.count;
          if (r.count < 5000) return dropped;
        }
      },

      async getIdempotencyRecord(accountId, key) {
        const [row] = await sql<{ record: unknown }[]>`SELECT record FROM idempotency WHERE account_id = ${accountId} AND key = ${key}`;
        return row ? answers.open(accountId, StoredIdempotencyRecord.parse(row.record)) : null;
      },
      async putIdempotencyRecord(accountId, record) {
        const stored = answers.seal(accountId, record);
        await sql`INSERT INTO idempotency (account_id, key, created_at, record)
        VALUES (${accountId}, ${stored.key}, ${stored.created_at}, ${json(stored)}::text::json)
        ON CONFLICT (account_id, key) DO UPDATE SET created_at = EXCLUDED.created_at, record = EXCLUDED.record`;
      },
      async pruneIdempotency(olderThan) {
        return (await sql`DELETE FROM idempotency WHERE created_at < ${olderThan}`).count;
      },

      async getWallet(accountId) {
        const [row] = await sql<(Doc & { funded: boolean })[]>`SELECT doc, funded FROM wallets WHERE account_id = ${accountId}`;
        return row ? WalletRecord.parse({ ...(row.doc as object), funded: row.funded }) : null;
      },
      async createWallet(wallet) {
        const inserted = await sql`INSERT INTO wallets (account_id, funded, doc)
        VALUES (${wallet.account_id}, ${wallet.funded}, ${json(wallet)}::text::json)
        ON CONFLICT (account_id) DO NOTHING RETURNING account_id`;
        if (inserted.length > 0) return wallet;
        // Another writer won; under read committed its row is visible once its insert committed.
        const existing = await ops.getWallet(wallet.account_id);
        if (!existing) throw new Error(`wallet of ${wallet.account_id} vanished`);
        return existing;
      },
      async markWalletFunded(accountId) {
        await sql`UPDATE wallets SET funded = true WHERE account_id = ${accountId}`;
      },

      async createIntent(intent) {
        try {
          await insertIntent(sql, intent);
        } catch (e) {
          if (isUniqueViolation(e)) throw new PresenceError('conflict', `intent ${intent.id} exists`);
          throw e;
        }
      },
      async getIntent(accountId, id) {
        const [row] = await sql<Doc[]>`SELECT doc FROM intents WHERE account_id = ${accountId} AND id = ${id}`;
        return row ? IntentRecord.parse(row.doc) : null;
      },
      async findIntentByConfirmId(accountId, confirmId) {
        const [row] = await sql<Doc[]>`SELECT doc FROM intents
        WHERE account_id = ${accountId} AND confirm_id = ${confirmId} ORDER BY seq DESC LIMIT 1`;
        return row ? IntentRecord.parse(row.doc) : null;
      },
      async findIntentByIdempotencyKey(accountId, key) {
        const [row] = await sql<Doc[]>`SELECT doc FROM intents
        WHERE account_id = ${accountId} AND idempotency_key = ${key} ORDER BY seq DESC LIMIT 1`;
        return row ? IntentRecord.parse(row.doc) : null;
      },
      async transitionIntent(accountId, id, from, to, patch = {}) {
        // Compare-and-set on the record's stored text, two statements and no transaction: the
        // UPDATE matches only the text that was read (re-checked after any concurrent writer
        // commits), so a change in between makes it match nothing and the read starts again.
        // Half the round trips of BEGIN / SELECT … FOR UPDATE / UPDATE / COMMIT, and this runs
        // inside every intent's nonce lock.
        for (;;) {
          const [row] = await sql<{ doc: string }[]>`SELECT doc::text AS doc FROM intents
          WHERE account_id = ${accountId} AND id = ${id} AND state = ANY(${[...from]}::text[])`;
          if (!row) return null;
          const next = IntentRecord.parse({ ...(JSON.parse(row.doc) as object), ...patch, state: to });
          const c = intentColumns(next);
          const written =
            await sql`UPDATE intents SET state = ${c.state}, confirm_id = ${c.confirm_id}, idempotency_key = ${c.idempotency_key},
          spent_at = ${c.spent_at}, value_usd = ${c.value_usd}, expires_at = ${c.expires_at}, doc = ${json(next)}::text::json
          WHERE account_id = ${accountId} AND id = ${id} AND doc::text = ${row.doc}`;
          if (written.count === 1) return next;
        }
      },
      async listIntents(accountId, filter = {}) {
        const rows = filter.states
          ? await sql<Doc[]>`SELECT doc FROM intents
            WHERE account_id = ${accountId} AND state = ANY(${[...filter.states]}::text[]) ORDER BY seq`
          : await sql<Doc[]>`SELECT doc FROM intents WHERE account_id = ${accountId} ORDER BY seq`;
        return rows.map((r) => IntentRecord.parse(r.doc));
      },
      async spentSince(accountId, since) {
        // An index-only range scan of the partial index intents_spend: the cost grows with the
        // day's spending intents, not with the account's history.
        const [row] = await sql<{ total: string }[]>`SELECT COALESCE(sum(value_usd), 0)::text AS total FROM intents
        WHERE account_id = ${accountId} AND state IN ('executing', 'signed', 'done') AND spent_at >= ${since}`;
        return BigInt(row?.total ?? '0');
      },
      async intentsInStates(states) {
        const rows = await sql<Doc[]>`SELECT doc FROM intents WHERE state = ANY(${[...states]}::text[]) ORDER BY seq`;
        return rows.map((r) => IntentRecord.parse(r.doc));
      },
      async dueHolds(now) {
        const rows = await sql<Doc[]>`SELECT doc FROM intents WHERE state = 'held' AND expires_at <= ${now} ORDER BY expires_at`;
        return rows.map((r) => IntentRecord.parse(r.doc));
      },

      async appendThread(accountId, entry) {
        const [row] = await sql<{ id: string }[]>`
        WITH next AS (
          INSERT INTO account_seq AS s (account_id, thread) VALUES (${accountId}, 1)
          ON CONFLICT (account_id) DO UPDATE SET thread = s.thread + 1
          RETURNING thread
        )
        INSERT INTO thread (account_id, id, entry)
        SELECT ${accountId}::text, thread, ${json(entry)}::text::json FROM next
        RETURNING id`;
        return { ...entry, id: Number(row?.id) } as ThreadEntry;
      },
      async readThread(accountId, { before, limit }) {
        const rows =
          before === undefined
            ? await sql`SELECT id, entry FROM thread WHERE account_id = ${accountId} ORDER BY id DESC LIMIT ${limit}`
            : await sql`SELECT id, entry FROM thread
              WHERE account_id = ${accountId} AND id < ${before} ORDER BY id DESC LIMIT ${limit}`;
        return rows.reverse().map((r) => ThreadEntry.parse({ ...(r.entry as object), id: Number(r.id) }));
      },

      ...standingRows(run),

      async putLink(link, now) {
        await begin(async (tx) => {
          await tx`DELETE FROM links WHERE expires_at <= ${now}`;
          await tx`INSERT INTO links (hash, expires_at, redeemed_at, doc)
          VALUES (${link.hash}, ${link.expires_at}, ${link.redeemed_at}, ${json(link)}::text::json)
          ON CONFLICT (hash) DO UPDATE SET expires_at = EXCLUDED.expires_at, redeemed_at = EXCLUDED.redeemed_at, doc = EXCLUDED.doc`;
        });
      },
      async redeemLink(hash, now) {
        const [row] = await sql<(Doc & { redeemed_at: number })[]>`UPDATE links SET redeemed_at = ${now}
        WHERE hash = ${hash} AND redeemed_at IS NULL AND expires_at > ${now}
        RETURNING doc, redeemed_at`;
        return row ? LinkRecord.parse({ ...(row.doc as object), redeemed_at: row.redeemed_at }) : null;
      },
      async countOutstandingLinks(accountId, now) {
        // Expired rows are deleted as codes are made, so the scan is over live codes only.
        const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM links
        WHERE doc->>'account_id' = ${accountId} AND redeemed_at IS NULL AND expires_at > ${now}`;
        return row?.n ?? 0;
      },
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
