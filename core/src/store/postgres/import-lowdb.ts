// Moving up from the embedded store: copies everything a data directory keeps into an empty
// PostgreSQL database, in ONE transaction (a failure leaves the database empty, a retry starts
// over). Records are copied as they are, ids included: keys hash the same secrets, event and
// thread ids keep their numbers and their counters continue from where the embedded store
// stood (a pruned log's next id is still the old latest + 1), wallets and Idempotency-Key
// answers stay sealed under the same master key (both stores seal answers alike).
// The embedded store is read through its own port (which cuts a torn last line and moves an
// old layout over first); the families the port cannot list, answers, link codes and surfaces
// (tokens, links and feed, so a bot's saved cursor still means the same place), are read from
// their files; webhooks and passkeys, the ports beside the store, in import-beside.ts. The
// master key is checked against the install first (its check value, and every wallet), before
// anything is read or sealed with it, and the database gets the check value in the same
// transaction, so a server started with another key stops at once even on an install that
// kept no wallet.
import path from 'node:path';
import type postgres from 'postgres';
import { z } from 'zod';
import type { Keystore } from '../../keystore/keystore';
import { createAppendLog } from '../append-log';
import { LinkRecord, memoryDueAt, type StoredEvent, StoredIdempotencyRecord, type ThreadEntry } from '../documents';
import { accountFile, readJson } from '../lowdb/files';
import { createLowdbStore } from '../lowdb/lowdb-store';
import { readSurfaceLogs, surfaceLogs } from '../lowdb/surfaces';
import { fileMasterKeyCheck, MasterKeyMismatch, masterKeyCheckValue, masterKeyMismatch } from '../master-key-check';
import type { StorePort } from '../store-port';
import { openDatabase } from './database';
import { type BesideCounts, copyBeside } from './import-beside';
import { intentColumns } from './intents-rows';
import { migrate } from './migrate';
import { json } from './records';
import { standingColumns } from './standing-rows';

/** How many records of each family were copied. */
export type ImportCounts = {
  accounts: number;
  keys: number;
  wallets: number;
  memory: number;
  events: number;
  thread: number;
  intents: number;
  idempotency: number;
  standing: number;
  links: number;
  surfaces: number;
  surface_links: number;
} & BesideCounts;

const TABLES = [
  'account_seq',
  'accounts',
  'api_keys',
  'memory_entries',
  'events',
  'idempotency',
  'wallets',
  'intents',
  'thread',
  'standing',
  'links',
  'surfaces',
  'surface_links',
  'surface_feed',
  'webhooks',
  'passkey_credentials',
  'passkey_tickets',
];
const PAGE = 5_000;

async function allEvents(store: StorePort, accountId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (let after = 0; ; ) {
    const page = await store.eventsAfter(accountId, after, PAGE);
    out.push(...page);
    if (page.length < PAGE) return out;
    after = (page.at(-1) as StoredEvent).id;
  }
}

async function allThread(store: StorePort, accountId: string): Promise<ThreadEntry[]> {
  const out: ThreadEntry[] = [];
  for (let before: number | undefined; ; ) {
    const page = await store.readThread(accountId, { before, limit: PAGE });
    out.unshift(...page);
    if (page.length < PAGE) return out;
    before = (page[0] as ThreadEntry).id;
  }
}

/** Throws MasterKeyMismatch unless every wallet of the install opens with `keystore`. */
async function requireWalletsOpen(store: StorePort, keystore: Keystore) {
  for (const account of await store.listAccounts()) {
    const wallet = await store.getWallet(account.id);
    if (!wallet) continue;
    try {
      keystore.open(account.id, wallet.address, wallet.key);
    } catch {
      throw new MasterKeyMismatch(`it does not open the wallet of account ${account.id}`);
    }
  }
}

/** The first table of the database that holds a row, or null when every one is empty. */
async function firstNonEmpty(sql: postgres.Sql): Promise<string | null> {
  for (const table of TABLES) {
    const [row] = await sql`SELECT EXISTS (SELECT 1 FROM ${sql(table)}) AS any`;
    if (row?.any) return table;
  }
  return null;
}

/** Where one import copies to and from, and what it has counted. */
type Copy = { tx: postgres.TransactionSql; lowdb: StorePort; root: string; now: number; counts: ImportCounts };

/** The account's keys, wallet and memory entries; answers how many entries it keeps. */
async function copyRecords({ tx, lowdb, counts }: Copy, id: string): Promise<number> {
  for (const key of await lowdb.listKeys(id)) {
    await tx`INSERT INTO api_keys (id, account_id, secret_hashes, doc)
      VALUES (${key.id}, ${id}, ${key.secrets.map((s) => s.hash)}::text[], ${json(key)}::text::json)`;
    counts.keys++;
  }
  const wallet = await lowdb.getWallet(id);
  if (wallet) {
    await tx`INSERT INTO wallets (account_id, funded, doc) VALUES (${id}, ${wallet.funded}, ${json(wallet)}::text::json)`;
    counts.wallets++;
  }
  const memory = await lowdb.readMemory(id);
  if (memory.length > 0) {
    await tx`INSERT INTO memory_entries (account_id, key, due_at, entry)
      SELECT ${id}::text, m.key, m.due_at, m.entry::json
      FROM unnest(${memory.map((e) => e.key)}::text[], ${memory.map(memoryDueAt)}::float8[], ${memory.map((e) => json(e))}::text[])
        AS m(key, due_at, entry)`;
    counts.memory += memory.length;
  }
  return memory.length;
}

/** The account's events and thread, ids kept, and its counter row continuing after them. */
async function copyLogs({ tx, lowdb, counts }: Copy, id: string, memoryCount: number) {
  const events = await allEvents(lowdb, id);
  for (let i = 0; i < events.length; i += PAGE) {
    const page = events.slice(i, i + PAGE);
    await tx`INSERT INTO events (account_id, id, type, at, data)
      SELECT ${id}::text, e.id, e.type, e.at, e.data::json
      FROM unnest(${page.map((e) => e.id)}::bigint[], ${page.map((e) => e.type)}::text[],
                  ${page.map((e) => e.at)}::float8[], ${page.map((e) => json(e.data))}::text[]) AS e(id, type, at, data)`;
  }
  counts.events += events.length;
  const thread = await allThread(lowdb, id);
  for (let i = 0; i < thread.length; i += PAGE) {
    const page = thread.slice(i, i + PAGE);
    await tx`INSERT INTO thread (account_id, id, entry)
      SELECT ${id}::text, t.id, t.entry::json
      FROM unnest(${page.map((t) => t.id)}::bigint[], ${page.map(({ id: _, ...entry }) => json(entry))}::text[]) AS t(id, entry)`;
  }
  counts.thread += thread.length;
  // The counters continue from the embedded store's latest ids (events pruned away included).
  const latestEvent = (await lowdb.eventBounds(id)).latest;
  const latestThread = thread.at(-1)?.id ?? 0;
  if (latestEvent > 0 || latestThread > 0 || memoryCount > 0)
    await tx`INSERT INTO account_seq (account_id, events, thread, memory)
      VALUES (${id}, ${latestEvent}, ${latestThread}, ${memoryCount})`;
}

/** The account's intents and standing intents, with the columns their queries read. */
async function copyIntentsAndStanding({ tx, lowdb, counts }: Copy, id: string) {
  for (const intent of await lowdb.listIntents(id)) {
    const c = intentColumns(intent);
    await tx`INSERT INTO intents (account_id, id, state, confirm_id, idempotency_key, spent_at, value_usd, expires_at, doc)
      VALUES (${id}, ${intent.id}, ${c.state}, ${c.confirm_id}, ${c.idempotency_key}, ${c.spent_at}, ${c.value_usd}, ${c.expires_at},
        ${json(intent)}::text::json)`;
    counts.intents++;
  }
  for (const standing of await lowdb.listStanding(id)) {
    const c = standingColumns(standing);
    await tx`INSERT INTO standing (account_id, id, active, trigger_kind, next_at, has_pending, created_at, doc)
      VALUES (${id}, ${standing.id}, ${c.active}, ${c.trigger_kind}, ${c.next_at}, ${c.has_pending}, ${c.created_at},
        ${json(standing)}::text::json)`;
    counts.standing++;
  }
}

/** The account's Idempotency-Key answers (sealed, as stored) and its link codes that can still be redeemed: read from their files. */
async function copyAnswersAndLinks({ tx, lowdb, root, now, counts }: Copy, id: string) {
  // Opening the account's answers seals any an earlier version kept in the clear; the
  // log then holds one line per put, the last one per key winning.
  await lowdb.getIdempotencyRecord(id, '');
  const answers = new Map<string, StoredIdempotencyRecord>();
  const log = createAppendLog(accountFile(root, 'idempotency', id, '.jsonl'), StoredIdempotencyRecord, { fsync: false });
  for (const r of await log.readAll()) answers.set(r.key, r);
  await log.close();
  for (const r of answers.values()) {
    await tx`INSERT INTO idempotency (account_id, key, created_at, record) VALUES (${id}, ${r.key}, ${r.created_at}, ${json(r)}::text::json)`;
    counts.idempotency++;
  }
  const links = z
    .object({ links: z.array(LinkRecord) })
    .nullable()
    .parse(await readJson(accountFile(root, 'links', id, '.json')));
  for (const link of links?.links ?? []) {
    if (link.expires_at <= now) continue; // could never be redeemed
    await tx`INSERT INTO links (hash, expires_at, redeemed_at, doc)
      VALUES (${link.hash}, ${link.expires_at}, ${link.redeemed_at}, ${json(link)}::text::json)`;
    counts.links++;
  }
}

/**
 * Surface tokens, their links and the feed, positions kept (a bot's cursor is a position), the
 * feed's counter continuing after them; the embedded store's mark for each account a live link
 * still names (PostgreSQL keeps marks only while a link is live).
 */
async function copySurfaces(tx: postgres.TransactionSql, dataDir: string, counts: ImportCounts) {
  const logs = surfaceLogs(dataDir, false);
  try {
    const { surfaces, links, feed, marks } = await readSurfaceLogs(logs);
    for (const s of surfaces.values()) {
      await tx`INSERT INTO surfaces (id, hash, revoked_at, doc) VALUES (${s.id}, ${s.hash}, ${s.revoked_at}, ${json(s)}::text::json)`;
      counts.surfaces++;
    }
    const linked = new Set<string>();
    for (const l of links.values()) {
      await tx`INSERT INTO surface_links (key_id, surface_id, account_id, surface_user, created_at, from_event, from_seq, revoked_at)
        VALUES (${l.key_id}, ${l.surface_id}, ${l.account_id}, ${l.surface_user}, ${l.created_at}, ${l.from_event}, ${l.from_seq}, ${l.revoked_at})`;
      counts.surface_links++;
      if (l.revoked_at === null) linked.add(l.account_id);
    }
    for (let i = 0; i < feed.length; i += PAGE) {
      const page = feed.slice(i, i + PAGE);
      await tx`INSERT INTO surface_feed (seq, account_id, kind, event_id, key_id, surface_id, at)
        SELECT * FROM unnest(${page.map((f) => f.seq)}::bigint[], ${page.map((f) => f.account_id)}::text[], ${page.map((f) => f.kind)}::text[],
          ${page.map((f) => f.event_id) as number[]}::bigint[], ${page.map((f) => f.key_id) as string[]}::text[],
          ${page.map((f) => f.surface_id) as string[]}::text[], ${page.map((f) => f.at)}::float8[])`;
    }
    const last = feed.at(-1)?.seq;
    if (last !== undefined) await tx`SELECT setval(pg_get_serial_sequence('surface_feed', 'seq'), ${last})`;
    for (const account of linked) await tx`INSERT INTO surface_marks (account_id, through) VALUES (${account}, ${marks.get(account) ?? 0})`;
  } finally {
    await Promise.all([logs.tokenLog.close(), logs.linkLog.close(), logs.feedLog.close()]);
  }
}

/**
 * Copies the embedded install in `dataDir` into the database at `url` (migrated first), which
 * must be empty. `keystore` is the master key the install sealed with. The caller keeps any
 * server off `dataDir` meanwhile (the data-directory lock).
 */
export async function importLowdb({
  dataDir,
  url,
  keystore,
  now = Date.now(),
}: {
  dataDir: string;
  url: string;
  keystore: Keystore;
  now?: number;
}): Promise<ImportCounts> {
  const installCheck = await fileMasterKeyCheck(dataDir).read();
  const wrong = installCheck ? masterKeyMismatch(installCheck, keystore) : null;
  if (wrong) throw new MasterKeyMismatch(wrong);
  await migrate(url);
  const sql = openDatabase(url, { max: 1 });
  const lowdb = await createLowdbStore({ dataDir, keystore });
  const root = path.join(dataDir, 'data');
  const counts: ImportCounts = {
    accounts: 0,
    keys: 0,
    wallets: 0,
    memory: 0,
    events: 0,
    thread: 0,
    intents: 0,
    idempotency: 0,
    standing: 0,
    links: 0,
    surfaces: 0,
    surface_links: 0,
    webhooks: 0,
    webhook_deliveries: 0,
    passkeys: 0,
    passkey_links: 0,
  };
  try {
    const taken = await firstNonEmpty(sql);
    if (taken) throw new Error(`the database is not empty (table ${taken} has rows): import-lowdb copies into an empty database only`);
    await requireWalletsOpen(lowdb, keystore);
    await sql.begin(async (tx) => {
      // An empty database may hold the check value of a server that started on it and stopped: the install's key replaces it.
      await tx`INSERT INTO master_key_check (check_value) VALUES (${masterKeyCheckValue(keystore)})
        ON CONFLICT (id) DO UPDATE SET check_value = EXCLUDED.check_value, rotating_to = NULL, written_at = now()`;
      const copy: Copy = { tx, lowdb, root, now, counts };
      const accounts = await lowdb.listAccounts();
      for (const account of accounts) {
        await tx`INSERT INTO accounts (id, doc) VALUES (${account.id}, ${json(account)}::text::json)`;
        counts.accounts++;
        const memoryCount = await copyRecords(copy, account.id);
        await copyLogs(copy, account.id, memoryCount);
        await copyIntentsAndStanding(copy, account.id);
        await copyAnswersAndLinks(copy, account.id);
      }
      await copySurfaces(tx, dataDir, counts);
      Object.assign(
        counts,
        await copyBeside(
          tx,
          dataDir,
          accounts.map((a) => a.id),
          now,
        ),
      );
    });
    return counts;
  } finally {
    await lowdb.close();
    await sql.end();
  }
}
