// The embedded store: lowdb JSON documents for small, bounded state (accounts, keys, one
// memory document per account) and append-only JSON-lines logs for what only grows (events,
// idempotency answers), all under <dataDir>/data. lowdb's `data` never leaves this file.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { z } from 'zod';
import { type AppendLog, createAppendLog } from './append-log';
import {
  AccountRecord,
  IdempotencyRecord,
  IntentRecord,
  KeyRecord,
  LinkRecord,
  MemoryEntry,
  StandingRecord,
  StoredEvent,
  ThreadEntry,
  WalletRecord,
} from './documents';
import { createKeyedLock } from './keyed-lock';
import type { EventBounds, StorePort } from './store-port';

const AccountsDoc = z.object({ accounts: z.array(AccountRecord) });
const KeysDoc = z.object({ keys: z.array(KeyRecord) });
const MemoryDoc = z.object({ entries: z.array(MemoryEntry) });
const WalletsDoc = z.object({ wallets: z.array(WalletRecord) });
const StandingDoc = z.object({ standing: z.array(StandingRecord) });
const LinksDoc = z.object({ links: z.array(LinkRecord) });

type Doc<T> = { db: Low<T>; schema: z.ZodType<T> };

/** Account ids become file names; keep them to a safe alphabet. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const fileSafe = (id: string) => {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new Error(`unsafe id for a file name: ${id}`);
  return id;
};

export type LowdbStoreOptions = { dataDir: string; fsync?: boolean };

export async function createLowdbStore({ dataDir, fsync = false }: LowdbStoreOptions): Promise<StorePort> {
  const root = path.join(dataDir, 'data');
  for (const dir of ['', 'memory', 'events', 'idempotency', 'intents', 'thread', 'standing'])
    mkdirSync(path.join(root, dir), { recursive: true });
  const lock = createKeyedLock();

  async function openDoc<T>(file: string, schema: z.ZodType<T>, empty: T): Promise<Doc<T>> {
    const db = new Low<T>(new JSONFile<T>(file), empty);
    await db.read();
    db.data = deepFreeze(schema.parse(db.data));
    return { db, schema };
  }
  // Every mutation works on a copy and swaps it in after a successful write, so readers
  // only ever see committed documents. Committed documents are frozen, which lets reads
  // hand them out without a defensive copy on the hot path.
  async function mutate<T, R>(name: string, doc: Doc<T>, fn: (data: T) => { data: T; result: R }): Promise<R> {
    return lock(name, async () => {
      const { data: draft, result } = fn(structuredClone(doc.db.data));
      const data = deepFreeze(draft);
      const previous = doc.db.data;
      doc.db.data = data;
      try {
        await doc.db.write();
      } catch (e) {
        doc.db.data = previous;
        throw e;
      }
      return result;
    });
  }

  const accounts = await openDoc(path.join(root, 'accounts.json'), AccountsDoc, { accounts: [] });
  const keys = await openDoc(path.join(root, 'keys.json'), KeysDoc, { keys: [] });
  const keyByHash = new Map<string, KeyRecord>();
  const indexKeys = () => {
    keyByHash.clear();
    for (const k of keys.db.data.keys) for (const s of k.secrets) keyByHash.set(s.hash, k);
  };
  indexKeys();

  const links = await openDoc(path.join(root, 'links.json'), LinksDoc, { links: [] });
  const wallets = await openDoc(path.join(root, 'wallets.json'), WalletsDoc, { wallets: [] });

  // Intents: each version of a record is appended; the newest line for an id wins on load.
  // A transition is one appended line, so its cost does not grow with history. Records
  // stay in memory (they are small and bounded by what an account does).
  type IntentLog = { file: AppendLog<IntentRecord>; byId: Map<string, IntentRecord> };
  const intentLogs = new Map<string, Promise<IntentLog>>();
  const intentLog = (accountId: string) => {
    let l = intentLogs.get(accountId);
    if (!l) {
      l = (async () => {
        const file = createAppendLog(path.join(root, 'intents', `${fileSafe(accountId)}.jsonl`), IntentRecord, { fsync });
        const byId = new Map<string, IntentRecord>();
        for (const r of await file.readAll()) byId.set(r.id, deepFreeze(r));
        return { file, byId };
      })();
      intentLogs.set(accountId, l);
    }
    return l;
  };

  // The thread: append-only like events; the whole account thread is served from memory.
  type ThreadLog = { file: AppendLog<ThreadEntry>; entries: ThreadEntry[]; next: number };
  const threadLogs = new Map<string, Promise<ThreadLog>>();
  const threadLog = (accountId: string) => {
    let l = threadLogs.get(accountId);
    if (!l) {
      l = (async () => {
        const file = createAppendLog(path.join(root, 'thread', `${fileSafe(accountId)}.jsonl`), ThreadEntry, { fsync });
        const entries = await file.readAll();
        return { file, entries, next: (entries.at(-1)?.id ?? 0) + 1 };
      })();
      threadLogs.set(accountId, l);
    }
    return l;
  };

  type StandingDocT = z.infer<typeof StandingDoc>;
  const standingDocs = new Map<string, Promise<Doc<StandingDocT>>>();
  const standingDoc = (accountId: string) => {
    let d = standingDocs.get(accountId);
    if (!d) {
      d = openDoc(path.join(root, 'standing', `${fileSafe(accountId)}.json`), StandingDoc, { standing: [] });
      standingDocs.set(accountId, d);
    }
    return d;
  };

  const memoryDocs = new Map<string, Promise<Doc<z.infer<typeof MemoryDoc>>>>();
  const memoryDoc = (accountId: string) => {
    let d = memoryDocs.get(accountId);
    if (!d) {
      d = openDoc(path.join(root, 'memory', `${fileSafe(accountId)}.json`), MemoryDoc, { entries: [] });
      memoryDocs.set(accountId, d);
    }
    return d;
  };

  // Events: the file is the record; an in-memory copy of what is retained serves replays.
  type EventLog = { file: AppendLog<StoredEvent>; events: StoredEvent[]; next: number };
  const eventLogs = new Map<string, Promise<EventLog>>();
  const eventLog = (accountId: string) => {
    let l = eventLogs.get(accountId);
    if (!l) {
      l = (async () => {
        const file = createAppendLog(path.join(root, 'events', `${fileSafe(accountId)}.jsonl`), StoredEvent, { fsync });
        const events = await file.readAll();
        const last = events.at(-1);
        return { file, events, next: last ? last.id + 1 : 1 };
      })();
      eventLogs.set(accountId, l);
    }
    return l;
  };

  type IdemLog = { file: AppendLog<IdempotencyRecord>; byKey: Map<string, IdempotencyRecord> };
  const idemLogs = new Map<string, Promise<IdemLog>>();
  const idemLog = (accountId: string) => {
    let l = idemLogs.get(accountId);
    if (!l) {
      l = (async () => {
        const file = createAppendLog(path.join(root, 'idempotency', `${fileSafe(accountId)}.jsonl`), IdempotencyRecord, { fsync });
        const byKey = new Map<string, IdempotencyRecord>();
        for (const r of await file.readAll()) byKey.set(r.key, r);
        return { file, byKey };
      })();
      idemLogs.set(accountId, l);
    }
    return l;
  };

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
      await mutate('accounts', accounts, (d) => {
        if (d.accounts.some((a) => a.id === account.id)) throw new Error(`account ${account.id} exists`);
        return { data: { accounts: [...d.accounts, account] }, result: undefined };
      });
    },
    async getAccount(id) {
      return accounts.db.data.accounts.find((a) => a.id === id) ?? null;
    },
    async listAccounts() {
      return accounts.db.data.accounts;
    },
    async updateAccount(id, update) {
      return mutate('accounts', accounts, (d) => {
        const i = d.accounts.findIndex((a) => a.id === id);
        if (i < 0) throw new Error(`no account ${id}`);
        const next = update(d.accounts[i] as AccountRecord);
        d.accounts[i] = next;
        return { data: d, result: next };
      });
    },

    async insertKey(key) {
      await mutate('keys', keys, (d) => ({ data: { keys: [...d.keys, key] }, result: undefined }));
      indexKeys();
    },
    async getKey(id) {
      return keys.db.data.keys.find((k) => k.id === id) ?? null;
    },
    async findKeyBySecretHash(hash) {
      const k = keyByHash.get(hash);
      return k ?? null;
    },
    async listKeys(accountId) {
      return keys.db.data.keys.filter((k) => k.account_id === accountId);
    },
    async updateKey(id, update) {
      const result = await mutate('keys', keys, (d) => {
        const i = d.keys.findIndex((k) => k.id === id);
        if (i < 0) throw new Error(`no key ${id}`);
        const next = update(d.keys[i] as KeyRecord);
        d.keys[i] = next;
        return { data: d, result: next };
      });
      indexKeys();
      return result;
    },

    async readMemory(accountId) {
      return (await memoryDoc(accountId)).db.data.entries;
    },
    async updateMemory(accountId, update) {
      const doc = await memoryDoc(accountId);
      return mutate(`memory:${accountId}`, doc, (d) => {
        const { entries, result } = update(d.entries);
        return { data: { entries }, result };
      });
    },

    async appendEvent(accountId, event) {
      const log = await eventLog(accountId);
      return lock(`events:${accountId}`, async () => {
        const stored: StoredEvent = { id: log.next, ...event };
        await log.file.append([stored]);
        log.next += 1;
        log.events.push(stored);
        return stored;
      });
    },
    async eventsAfter(accountId, afterId, limit) {
      const log = await eventLog(accountId);
      const from = firstIndexAfter(log.events, afterId);
      return log.events.slice(from, from + limit);
    },
    async eventBounds(accountId): Promise<EventBounds> {
      const log = await eventLog(accountId);
      return { oldest: log.events[0]?.id ?? null, latest: log.next - 1 };
    },
    async pruneEvents(accountId, keepLast, olderThan) {
      const log = await eventLog(accountId);
      return lock(`events:${accountId}`, async () => {
        let cut = Math.max(0, log.events.length - keepLast);
        while (cut < log.events.length && (log.events[cut] as StoredEvent).at < olderThan) cut++;
        // Keep the newest event on disk even when all are stale, so ids never restart at 1.
        cut = Math.min(cut, log.events.length - 1);
        if (cut <= 0) return 0;
        const kept = log.events.slice(cut);
        await log.file.rewrite(kept);
        log.events = kept;
        return cut;
      });
    },

    async getIdempotencyRecord(accountId, key) {
      return (await idemLog(accountId)).byKey.get(key) ?? null;
    },
    async putIdempotencyRecord(accountId, record) {
      const log = await idemLog(accountId);
      await lock(`idem:${accountId}`, () => log.file.append([record]));
      log.byKey.set(record.key, record);
    },
    async pruneIdempotency(olderThan) {
      let dropped = 0;
      for (const { id: accountId } of accounts.db.data.accounts) {
        const log = await idemLog(accountId);
        const kept = [...log.byKey.values()].filter((r) => r.created_at >= olderThan);
        if (kept.length === log.byKey.size) continue;
        dropped += log.byKey.size - kept.length;
        await lock(`idem:${accountId}`, () => log.file.rewrite(kept));
        log.byKey = new Map(kept.map((r) => [r.key, r]));
      }
      return dropped;
    },

    async getWallet(accountId) {
      return wallets.db.data.wallets.find((w) => w.account_id === accountId) ?? null;
    },
    async createWallet(wallet) {
      return mutate('wallets', wallets, (d) => {
        const existing = d.wallets.find((w) => w.account_id === wallet.account_id);
        if (existing) return { data: d, result: existing };
        return { data: { wallets: [...d.wallets, wallet] }, result: wallet };
      });
    },
    async markWalletFunded(accountId) {
      await mutate('wallets', wallets, (d) => ({
        data: { wallets: d.wallets.map((w) => (w.account_id === accountId ? { ...w, funded: true } : w)) },
        result: undefined,
      }));
    },

    async createIntent(intent) {
      const log = await intentLog(intent.account_id);
      await lock(`intents:${intent.account_id}`, async () => {
        if (log.byId.has(intent.id)) throw new Error(`intent ${intent.id} exists`);
        await log.file.append([intent]);
        log.byId.set(intent.id, deepFreeze(structuredClone(intent)));
      });
    },
    async getIntent(accountId, id) {
      return (await intentLog(accountId)).byId.get(id) ?? null;
    },
    async findIntentByConfirmId(accountId, confirmId) {
      for (const r of (await intentLog(accountId)).byId.values()) if (r.confirm_id === confirmId) return r;
      return null;
    },
    async findIntentByIdempotencyKey(accountId, key) {
      for (const r of (await intentLog(accountId)).byId.values()) if (r.idempotency_key === key) return r;
      return null;
    },
    async transitionIntent(accountId, id, from, to, patch = {}) {
      const log = await intentLog(accountId);
      return lock(`intents:${accountId}`, async () => {
        const current = log.byId.get(id);
        if (!current || !from.includes(current.state)) return null;
        const next = deepFreeze({ ...structuredClone(current), ...structuredClone(patch), state: to });
        await log.file.append([next]);
        log.byId.set(id, next);
        return next;
      });
    },
    async listIntents(accountId, filter = {}) {
      const out: IntentRecord[] = [];
      for (const r of (await intentLog(accountId)).byId.values()) {
        if (filter.states && !filter.states.includes(r.state)) continue;
        if (filter.since !== undefined && r.created_at < filter.since) continue;
        out.push(r);
      }
      return out;
    },
    async intentsInStates(states) {
      const out: IntentRecord[] = [];
      for (const a of accounts.db.data.accounts) out.push(...(await store.listIntents(a.id, { states })));
      return out;
    },

    async appendThread(accountId, entry) {
      const log = await threadLog(accountId);
      return lock(`thread:${accountId}`, async () => {
        const stored = deepFreeze({ ...entry, id: log.next } as ThreadEntry);
        await log.file.append([stored]);
        log.next += 1;
        log.entries.push(stored);
        return stored;
      });
    },
    async readThread(accountId, { before, limit }) {
      const { entries } = await threadLog(accountId);
      const end = before === undefined ? entries.length : firstIndexAfter(entries, before - 1);
      return entries.slice(Math.max(0, end - limit), end);
    },

    async putStanding(record) {
      const doc = await standingDoc(record.account_id);
      await mutate(`standing:${record.account_id}`, doc, (d) => ({
        data: { standing: [...d.standing.filter((r) => r.id !== record.id), record] },
        result: undefined,
      }));
    },
    async listStanding(accountId) {
      if (accountId !== undefined) return (await standingDoc(accountId)).db.data.standing;
      const out: StandingRecord[] = [];
      for (const a of accounts.db.data.accounts) out.push(...(await standingDoc(a.id)).db.data.standing);
      return out;
    },
    async updateStanding(accountId, id, update) {
      const doc = await standingDoc(accountId);
      return mutate(`standing:${accountId}`, doc, (d) => {
        const i = d.standing.findIndex((r) => r.id === id);
        if (i < 0) return { data: d, result: null };
        const next = update(d.standing[i] as StandingRecord);
        d.standing[i] = next;
        return { data: d, result: next };
      });
    },

    async putLink(link, now) {
      await mutate('links', links, (d) => ({ data: { links: [...d.links.filter((l) => l.expires_at > now), link] }, result: undefined }));
    },
    async redeemLink(hash, now) {
      return mutate('links', links, (d) => {
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
      await Promise.all([
        ...[...eventLogs.values()].map(async (l) => (await l).file.close()),
        ...[...idemLogs.values()].map(async (l) => (await l).file.close()),
        ...[...intentLogs.values()].map(async (l) => (await l).file.close()),
        ...[...threadLogs.values()].map(async (l) => (await l).file.close()),
      ]);
    },
  };
  return store;
}
