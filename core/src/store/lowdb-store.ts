// The embedded store: lowdb JSON documents for small, bounded state and append-only JSON-lines
// logs for what only grows (events, thread, intents, idempotency answers), all under
// <dataDir>/data. lowdb's `data` never leaves this file.
//
// Every account's records live in documents and logs of its own (data/<family>/<account>),
// so a write costs what that account keeps, never what other accounts keep. The only shared
// document is the account index (accounts.json: ids, names, creation times), written when an
// account is created. Keys and link codes are found by hash across accounts through maps
// built at start from every account's documents, so lookups stay O(1) without a shared file.
//
// An answered write is on disk: documents are replaced by temp file + fsync + rename +
// directory fsync, appended lines are fdatasync'ed, both before the write resolves. Both
// group-commit (concurrent writes share one sync) so durability does not cost throughput
// linearly, and both publish to readers only after the write succeeded.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Adapter, Low } from 'lowdb';
import { z } from 'zod';
import type { Keystore } from '../wallet/keystore';
import { type AppendLog, createAppendLog } from './append-log';
import {
  AccountIndexEntry,
  AccountRecord,
  type IdempotencyRecord,
  IntentRecord,
  KeyRecord,
  LinkRecord,
  MemoryEntry,
  StandingRecord,
  StoredEvent,
  StoredIdempotencyRecord,
  ThreadEntry,
  WalletRecord,
} from './documents';
import { PRIVATE_DIR, writeFileAtomic } from './durable-file';
import { createIntentIndex, type IntentIndex } from './intent-index';
import { createKeyedLock } from './keyed-lock';
import { accountFile, documentIds, readJson } from './lowdb/files';
import { migrateSharedDocuments } from './lowdb/migrate-shared-documents';
import type { EventBounds, StorePort } from './store-port';

const AccountIndexDoc = z.object({ accounts: z.array(AccountIndexEntry) });
const AccountDoc = z.object({ account: AccountRecord.nullable() });
const KeysDoc = z.object({ keys: z.array(KeyRecord) });
const MemoryDoc = z.object({ entries: z.array(MemoryEntry) });
const WalletDoc = z.object({ wallet: WalletRecord.nullable() });
const StandingDoc = z.object({ standing: z.array(StandingRecord) });
const LinksDoc = z.object({ links: z.array(LinkRecord) });

/** One write of a document, shared by every mutation made while the previous write ran. */
type Batch<T> = { data: T; done: Promise<void>; resolve: () => void; reject: (e: unknown) => void };
type Doc<T> = {
  /** `db.data` is the committed document: the only version readers see. */
  db: Low<T>;
  /** The newest version, committed or not: what the next mutation builds on. */
  draft: T | null;
  /** Mutations waiting for the next write (the current one, if any, is already under way). */
  open: Batch<T> | null;
  writing: boolean;
};

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** One thing per account (a document, a log), opened on first use and kept open. */
function perAccount<T>(open: (accountId: string) => Promise<T>) {
  const opened = new Map<string, Promise<T>>();
  const get = (accountId: string): Promise<T> => {
    let t = opened.get(accountId);
    if (!t) {
      t = open(accountId);
      opened.set(accountId, t);
    }
    return t;
  };
  return Object.assign(get, { opened: () => [...opened.values()] });
}

export type LowdbStoreOptions = {
  dataDir: string;
  /** fsync every write before answering (the default). Only throwaway data (seeding a benchmark) may turn it off. */
  fsync?: boolean;
  /**
   * Seals stored Idempotency-Key answers at rest under the master key (they can carry a new
   * key's secret or a link code). Without it the store refuses to keep answers.
   */
  keystore?: Keystore;
};

export async function createLowdbStore({ dataDir, fsync = true, keystore }: LowdbStoreOptions): Promise<StorePort> {
  const root = path.join(dataDir, 'data');
  const families = ['accounts', 'keys', 'wallets', 'links', 'memory', 'events', 'idempotency', 'intents', 'thread', 'standing'];
  for (const dir of ['', ...families]) mkdirSync(path.join(root, dir), { recursive: true, mode: PRIVATE_DIR });
  await migrateSharedDocuments(root, { fsync });
  const lock = createKeyedLock();
  const writes = new Set<Promise<void>>();

  /** lowdb's JSONFile format, written durably (steno's writer renames without any fsync). */
  const jsonFile = <T>(file: string): Adapter<T> => ({
    read: async () => (await readJson(file)) as T | null,
    write: (data) => writeFileAtomic(file, JSON.stringify(data, null, 2), { fsync }),
  });

  async function openDoc<T>(file: string, schema: z.ZodType<T>, empty: T): Promise<Doc<T>> {
    const db = new Low<T>(jsonFile<T>(file), empty);
    await db.read();
    db.data = deepFreeze(schema.parse(db.data));
    return { db, draft: null, open: null, writing: false };
  }

  /** Writes the open batch, and whatever batches open meanwhile, one write at a time. */
  async function flush<T>(doc: Doc<T>) {
    if (doc.writing) return;
    doc.writing = true;
    for (let batch = doc.open; batch; batch = doc.open) {
      doc.open = null;
      try {
        await doc.db.adapter.write(batch.data);
      } catch (e) {
        // Mutations waiting for the next write were computed from this failed version, so
        // they fail with it; the next mutation starts again from the committed document.
        const later = doc.open as Batch<T> | null;
        doc.open = null;
        doc.draft = null;
        batch.reject(e);
        later?.reject(e);
        break;
      }
      doc.db.data = batch.data;
      if (doc.draft === batch.data) doc.draft = null;
      batch.resolve();
    }
    doc.writing = false;
  }

  // Every mutation works on a copy of the newest version and is published (swapped into
  // `db.data`) only after a write that contains it succeeded, so readers only ever see
  // committed documents. `fn` runs synchronously, so mutations of one document never
  // interleave; mutations made while a write is under way are written together next
  // (group commit: one temp file, two fsyncs, for all of them). Committed documents are
  // frozen, which lets reads hand them out without a defensive copy on the hot path.
  async function mutate<T, R>(doc: Doc<T>, fn: (data: T) => { data: T; result: R }): Promise<R> {
    const { data: draft, result } = fn(structuredClone(doc.draft ?? doc.db.data));
    const data = deepFreeze(draft);
    doc.draft = data;
    let batch = doc.open;
    if (!batch) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      batch = { data, done, resolve, reject };
      doc.open = batch;
      const settled = done.catch(() => undefined);
      writes.add(settled);
      void settled.then(() => writes.delete(settled));
      void flush(doc);
    }
    batch.data = data;
    await batch.done;
    return result;
  }

  /** A document per account under data/<family>/<account>.json. */
  const perAccountDoc = <T>(family: string, schema: z.ZodType<T>, empty: T) =>
    perAccount((accountId) => openDoc(accountFile(root, family, accountId, '.json'), schema, empty));
  /** An append-only log per account under data/<family>/<account>.jsonl, loaded by `load`. */
  const perAccountLog = <E, T>(family: string, schema: z.ZodType<E>, load: (file: AppendLog<E>, accountId: string) => Promise<T>) =>
    perAccount((accountId) => load(createAppendLog(accountFile(root, family, accountId, '.jsonl'), schema, { fsync }), accountId));

  // Accounts: the index is the one shared document (written only when an account is created);
  // what an account changes (presence, preferences, policy) is in its own document.
  const accountIndex = await openDoc(path.join(root, 'accounts.json'), AccountIndexDoc, { accounts: [] });
  const accountDoc = perAccountDoc('accounts', AccountDoc, { account: null });
  const accountIds = new Set(accountIndex.db.data.accounts.map((a) => a.id));
  const indexed = (id: string) => accountIds.has(id);

  // Keys: one document per account; every key is loaded at start and indexed by id and by
  // secret hash, so authentication is one map lookup and a key write re-indexes only that key.
  const keyDoc = perAccountDoc('keys', KeysDoc, { keys: [] });
  const keyById = new Map<string, KeyRecord>();
  const keyByHash = new Map<string, KeyRecord>();
  const indexKey = (k: KeyRecord) => {
    for (const s of keyById.get(k.id)?.secrets ?? []) if (keyByHash.get(s.hash)?.id === k.id) keyByHash.delete(s.hash);
    keyById.set(k.id, k);
    for (const s of k.secrets) keyByHash.set(s.hash, k);
  };
  /** Indexes the committed version of key `id` in `doc` (after a write that contained it). */
  const reindexKey = (doc: Doc<z.infer<typeof KeysDoc>>, id: string) => {
    const k = doc.db.data.keys.find((x) => x.id === id);
    if (k) indexKey(k);
    return k;
  };
  for (const accountId of documentIds(path.join(root, 'keys'))) for (const k of (await keyDoc(accountId)).db.data.keys) indexKey(k);

  // Link codes: one document per account, and a map from code hash to account built at start
  // (a redeem knows only the code).
  const linkDoc = perAccountDoc('links', LinksDoc, { links: [] });
  const linkAccount = new Map<string, string>();
  for (const accountId of documentIds(path.join(root, 'links')))
    for (const l of (await linkDoc(accountId)).db.data.links) linkAccount.set(l.hash, accountId);

  const walletDoc = perAccountDoc('wallets', WalletDoc, { wallet: null });

  // Intents: each version of a record is appended; the newest line for an id wins on load.
  // A transition is one appended line, so its cost does not grow with history. Records
  // stay in memory (they are small and bounded by what an account does), indexed by
  // Idempotency-Key and confirm id, with today's spend kept as a running sum, so the lookups
  // every intent makes do not grow with the account's history either. Transitions are compare-and-set on the committed
  // state, so they hold the account's intents lock until their line is durable.
  type IntentLog = { file: AppendLog<IntentRecord>; index: IntentIndex };
  const intentLog = perAccountLog('intents', IntentRecord, async (file): Promise<IntentLog> => {
    const log = { file, index: createIntentIndex() };
    for (const r of await file.readAll()) log.index.put(deepFreeze(r));
    return log;
  });

  // The thread: append-only like events; the whole account thread is served from memory.
  type ThreadLog = { file: AppendLog<ThreadEntry>; entries: ThreadEntry[]; next: number };
  const threadLog = perAccountLog('thread', ThreadEntry, async (file): Promise<ThreadLog> => {
    const entries = await file.readAll();
    return { file, entries, next: (entries.at(-1)?.id ?? 0) + 1 };
  });

  const standingDoc = perAccountDoc('standing', StandingDoc, { standing: [] });
  const memoryDoc = perAccountDoc('memory', MemoryDoc, { entries: [] });

  // Events: the file is the record; an in-memory copy of what is retained serves replays.
  // `next` is the id the next append takes; `latest` the newest committed one (what bounds
  // report). After a failed write the two drift apart: ids skip, they never repeat.
  type EventLog = { file: AppendLog<StoredEvent>; events: StoredEvent[]; next: number; latest: number };
  const eventLog = perAccountLog('events', StoredEvent, async (file): Promise<EventLog> => {
    const events = await file.readAll();
    const latest = events.at(-1)?.id ?? 0;
    return { file, events, next: latest + 1, latest };
  });

  // Idempotency answers are kept as written to disk (body sealed) and opened on a hit.
  // The associated data binds a ciphertext to its account, key and request, so a body moved
  // to another record does not open.
  const answerContext = (accountId: string, r: { key: string; fingerprint: string }) =>
    `presence-idempotency:${accountId}:${createHash('sha256').update(r.key).update('\0').update(r.fingerprint).digest('hex')}`;
  const needKeystore = () => {
    if (!keystore) throw new Error('this store has no keystore: Idempotency-Key answers are only kept sealed');
    return keystore;
  };
  const sealAnswer = (accountId: string, { body, ...rest }: IdempotencyRecord): StoredIdempotencyRecord => ({
    ...rest,
    sealed: needKeystore().sealText(answerContext(accountId, rest), body),
  });
  const openAnswer = (accountId: string, r: StoredIdempotencyRecord): IdempotencyRecord => {
    if (!('sealed' in r)) return r;
    const { sealed, ...rest } = r;
    return { ...rest, body: needKeystore().openText(answerContext(accountId, rest), sealed) };
  };

  type IdemLog = { file: AppendLog<StoredIdempotencyRecord>; byKey: Map<string, StoredIdempotencyRecord> };
  const idemLog = perAccountLog('idempotency', StoredIdempotencyRecord, async (file, accountId): Promise<IdemLog> => {
    const log: IdemLog = { file, byKey: new Map() };
    let plain = false;
    for (const r of await file.readAll()) {
      log.byKey.set(r.key, r);
      plain ||= !('sealed' in r);
    }
    // Answers stored in the clear by an earlier version are sealed once, at first use.
    if (plain && keystore) {
      const sealed = [...log.byKey.values()].map((r) => ('sealed' in r ? r : sealAnswer(accountId, r)));
      await file.rewrite(
        () => sealed,
        (kept) => {
          log.byKey = new Map(kept.map((r) => [r.key, r]));
        },
      );
    }
    return log;
  });

  /** Index of the first entry whose id is greater than `afterId` (entries ascend by id). */
  const firstIndexAfter = (events: { id: number }[], afterId: number) => {
    let lo = 0;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((events[mid] as { id: number }).id <= afterId) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  const store: StorePort = {
    async createAccount(account) {
      await lock('accounts:create', async () => {
        if (indexed(account.id)) throw new Error(`account ${account.id} exists`);
        // Its document first: an index entry always has one. A crash in between leaves a
        // document nothing points to, which creating the account again overwrites.
        await mutate(await accountDoc(account.id), () => ({ data: { account }, result: undefined }));
        const { id, name, created_at } = account;
        await mutate(accountIndex, (d) => ({ data: { accounts: [...d.accounts, { id, name, created_at }] }, result: undefined }));
        accountIds.add(id);
      });
    },
    async getAccount(id) {
      return indexed(id) ? (await accountDoc(id)).db.data.account : null;
    },
    async listAccounts() {
      const out: AccountRecord[] = [];
      for (const { id } of accountIndex.db.data.accounts) {
        const a = (await accountDoc(id)).db.data.account;
        if (a) out.push(a);
      }
      return out;
    },
    async updateAccount(id, update) {
      if (!indexed(id)) throw new Error(`no account ${id}`);
      return mutate(await accountDoc(id), (d) => {
        if (!d.account) throw new Error(`no account ${id}`);
        const next = update(d.account);
        // The index keeps these; they never change.
        if (next.id !== id || next.name !== d.account.name || next.created_at !== d.account.created_at)
          throw new Error(`account ${id}: id, name and created_at are fixed`);
        return { data: { account: next }, result: next };
      });
    },

    async insertKey(key) {
      const doc = await keyDoc(key.account_id);
      await mutate(doc, (d) => ({ data: { keys: [...d.keys, key] }, result: undefined }));
      reindexKey(doc, key.id);
    },
    async getKey(id) {
      return keyById.get(id) ?? null;
    },
    async findKeyBySecretHash(hash) {
      return keyByHash.get(hash) ?? null;
    },
    async listKeys(accountId) {
      return (await keyDoc(accountId)).db.data.keys;
    },
    async updateKey(id, update) {
      const known = keyById.get(id);
      if (!known) throw new Error(`no key ${id}`);
      const doc = await keyDoc(known.account_id);
      const result = await mutate(doc, (d) => {
        const i = d.keys.findIndex((k) => k.id === id);
        if (i < 0) throw new Error(`no key ${id}`);
        const next = update(d.keys[i] as KeyRecord);
        if (next.id !== id || next.account_id !== known.account_id) throw new Error(`key ${id}: id and account are fixed`);
        d.keys[i] = next;
        return { data: d, result: next };
      });
      reindexKey(doc, id);
      return result;
    },

    async readMemory(accountId) {
      return (await memoryDoc(accountId)).db.data.entries;
    },
    async updateMemory(accountId, update) {
      const doc = await memoryDoc(accountId);
      return mutate(doc, (d) => {
        const { entries, result } = update(d.entries);
        return { data: { entries }, result };
      });
    },

    async appendEvent(accountId, event) {
      const log = await eventLog(accountId);
      // Taking the id and queueing the line happen together (synchronously), so lines land
      // in id order without holding a lock across the sync; concurrent appends share it.
      const stored: StoredEvent = { id: log.next, ...event };
      log.next += 1;
      await log.file.append([stored], () => {
        log.events.push(stored);
        log.latest = stored.id;
      });
      return stored;
    },
    async eventsAfter(accountId, afterId, limit) {
      const log = await eventLog(accountId);
      const from = firstIndexAfter(log.events, afterId);
      return log.events.slice(from, from + limit);
    },
    async eventBounds(accountId): Promise<EventBounds> {
      const log = await eventLog(accountId);
      return { oldest: log.events[0]?.id ?? null, latest: log.latest };
    },
    async pruneEvents(accountId, keepLast, olderThan) {
      const log = await eventLog(accountId);
      let cut = 0;
      // Decided inside the log's rewrite: every earlier append is committed by then and
      // later ones go to the new file, so pruning never drops an event being appended.
      await log.file.rewrite(
        () => {
          cut = Math.max(0, log.events.length - keepLast);
          while (cut < log.events.length && (log.events[cut] as StoredEvent).at < olderThan) cut++;
          // Keep the newest event on disk even when all are stale, so ids never restart at 1.
          cut = Math.min(cut, log.events.length - 1);
          return cut > 0 ? log.events.slice(cut) : null;
        },
        (kept) => {
          log.events = [...kept];
        },
      );
      return Math.max(cut, 0);
    },

    async getIdempotencyRecord(accountId, key) {
      const r = (await idemLog(accountId)).byKey.get(key);
      return r ? openAnswer(accountId, r) : null;
    },
    async putIdempotencyRecord(accountId, record) {
      const log = await idemLog(accountId);
      const stored = sealAnswer(accountId, record);
      await log.file.append([stored], () => {
        log.byKey.set(stored.key, stored);
      });
    },
    async pruneIdempotency(olderThan) {
      let dropped = 0;
      for (const { id: accountId } of accountIndex.db.data.accounts) {
        const log = await idemLog(accountId);
        // Compute, rewrite and swap all happen inside the log's rewrite, which is ordered
        // with its appends: a record put meanwhile is either committed (and kept here) or
        // appended to the new file afterwards, never lost (a lost record would let a
        // client's retry run its action a second time).
        await log.file.rewrite(
          () => {
            const kept = [...log.byKey.values()].filter((r) => r.created_at >= olderThan);
            return kept.length === log.byKey.size ? null : kept;
          },
          (kept) => {
            dropped += log.byKey.size - kept.length;
            log.byKey = new Map(kept.map((r) => [r.key, r]));
          },
        );
      }
      return dropped;
    },

    async getWallet(accountId) {
      return (await walletDoc(accountId)).db.data.wallet;
    },
    async createWallet(wallet) {
      return mutate(await walletDoc(wallet.account_id), (d) => {
        if (d.wallet) return { data: d, result: d.wallet };
        return { data: { wallet }, result: wallet };
      });
    },
    async markWalletFunded(accountId) {
      await mutate(await walletDoc(accountId), (d) => ({
        data: { wallet: d.wallet && { ...d.wallet, funded: true } },
        result: undefined,
      }));
    },

    async createIntent(intent) {
      const log = await intentLog(intent.account_id);
      await lock(`intents:${intent.account_id}`, async () => {
        if (log.index.byId.has(intent.id)) throw new Error(`intent ${intent.id} exists`);
        // See StorePort.createIntent: an `executing` record's line is synced by its next one.
        await log.file.append([intent], undefined, { sync: intent.state !== 'executing' });
        log.index.put(deepFreeze(structuredClone(intent)));
      });
    },
    async getIntent(accountId, id) {
      return (await intentLog(accountId)).index.byId.get(id) ?? null;
    },
    async findIntentByConfirmId(accountId, confirmId) {
      return (await intentLog(accountId)).index.byConfirmId(confirmId);
    },
    async findIntentByIdempotencyKey(accountId, key) {
      return (await intentLog(accountId)).index.byIdempotencyKey(key);
    },
    async transitionIntent(accountId, id, from, to, patch = {}) {
      const log = await intentLog(accountId);
      return lock(`intents:${accountId}`, async () => {
        const current = log.index.byId.get(id);
        if (!current || !from.includes(current.state)) return null;
        const next = deepFreeze({ ...structuredClone(current), ...structuredClone(patch), state: to });
        await log.file.append([next]);
        log.index.put(next);
        return next;
      });
    },
    async listIntents(accountId, filter = {}) {
      return (await intentLog(accountId)).index.list(filter.states);
    },
    async spentSince(accountId, since) {
      return (await intentLog(accountId)).index.spentSince(since);
    },
    async intentsInStates(states) {
      const out: IntentRecord[] = [];
      for (const a of accountIndex.db.data.accounts) out.push(...(await store.listIntents(a.id, { states })));
      return out;
    },

    async appendThread(accountId, entry) {
      const log = await threadLog(accountId);
      // As with events: id and queue position are taken together, published once durable.
      const stored = deepFreeze({ ...entry, id: log.next } as ThreadEntry);
      log.next += 1;
      await log.file.append([stored], () => {
        log.entries.push(stored);
      });
      return stored;
    },
    async readThread(accountId, { before, limit }) {
      const { entries } = await threadLog(accountId);
      const end = before === undefined ? entries.length : firstIndexAfter(entries, before - 1);
      return entries.slice(Math.max(0, end - limit), end);
    },

    async putStanding(record) {
      const doc = await standingDoc(record.account_id);
      await mutate(doc, (d) => ({
        data: { standing: [...d.standing.filter((r) => r.id !== record.id), record] },
        result: undefined,
      }));
    },
    async listStanding(accountId) {
      if (accountId !== undefined) return (await standingDoc(accountId)).db.data.standing;
      const out: StandingRecord[] = [];
      for (const a of accountIndex.db.data.accounts) out.push(...(await standingDoc(a.id)).db.data.standing);
      return out;
    },
    async updateStanding(accountId, id, update) {
      const doc = await standingDoc(accountId);
      return mutate(doc, (d) => {
        const i = d.standing.findIndex((r) => r.id === id);
        if (i < 0) return { data: d, result: null };
        const next = update(d.standing[i] as StandingRecord);
        d.standing[i] = next;
        return { data: d, result: next };
      });
    },

    async putLink(link, now) {
      const doc = await linkDoc(link.account_id);
      let expired: string[] = [];
      await mutate(doc, (d) => {
        expired = d.links.filter((l) => l.expires_at <= now).map((l) => l.hash);
        return { data: { links: [...d.links.filter((l) => l.expires_at > now), link] }, result: undefined };
      });
      for (const hash of expired) if (linkAccount.get(hash) === link.account_id) linkAccount.delete(hash);
      linkAccount.set(link.hash, link.account_id);
    },
    async redeemLink(hash, now) {
      const accountId = linkAccount.get(hash);
      if (accountId === undefined) return null;
      return mutate(await linkDoc(accountId), (d) => {
        const i = d.links.findIndex((l) => l.hash === hash);
        const l = d.links[i];
        if (!l || l.redeemed_at !== null || l.expires_at <= now) return { data: d, result: null };
        const next = { ...l, redeemed_at: now };
        d.links[i] = next;
        return { data: d, result: next };
      });
    },

    async close() {
      await lock.drain();
      await Promise.all(writes);
      const logs = [...eventLog.opened(), ...idemLog.opened(), ...intentLog.opened(), ...threadLog.opened()];
      await Promise.all(logs.map(async (l) => (await l).file.close()));
    },
  };
  return store;
}
