// What test keys read and write: an overlay on the live store. Reads go through to live data
// and see the overlay's own writes; writes stay in this process's memory, are never
// persisted, and nothing reading the live store sees them. Core gives its services this
// store for test keys and the live one for live keys (create-core), so a test key runs the
// live behaviour over another store instead of a second, simulated implementation.
//
// Records (accounts, keys, memory entries, wallets, standing intents) are overlaid one by
// one: the overlay keeps the fields its writes changed (the whole record when it made one, a
// tombstone when it removed one) and every other field, and every other record, reads live.
// The thread reads as the live thread with the overlay's own entries merged in by id.
// Events, intents, Idempotency-Key answers and link codes are the overlay's own only: an
// event id is a place in one sequence (one Last-Event-ID cannot point into two), a test key's
// intents are simulated actions that must neither count against nor act on real ones, a
// test request must never replay a live answer, and the port cannot read a link code
// without redeeming it.
//
// Its memory is a resource a client can grow, so it is capped per account: each family
// keeps the account's last `maxRecords` changes (an older change is forgotten and its
// record reads live again; the oldest events, intents and answers are dropped), and an
// account's whole overlay is dropped after `idleMs` without a write. A restart drops all.
import type { KeyKind } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { PresenceError } from '../errors/presence-error';
import type { IntentRecord, MemoryEntry, StoredEvent, ThreadEntry } from './documents';
import { immediateUnits } from './immediate-units';
import { createIntentIndex } from './intent-index';
import { createOverlayAccounts, type Family, type OverlayAccounts, type Records } from './overlay-accounts';
import { applied, type Changes, changeFrom, copy, overlaid, remember } from './overlay-changes';
import type { EmbeddedStore, MemoryPeek, StoreOps, StorePort } from './store-port';

/** What a key of each kind uses (its store, its leases): chosen once, in create-core. */
export type ByKind<T> = (kind: KeyKind) => T;
/** The store a key of each kind reads and writes. */
export type StoreFor = ByKind<StorePort>;

export type OverlayCaps = {
  /** Per account and family: changed records, thread entries, events, intents, answers, link codes. */
  maxRecords: number;
  /** An account's overlay is dropped this long after its last write. */
  idleMs: number;
};

/** A day: as long as a hold may wait (confirm_timeout_s ≤ 86,400) and an answer is replayed. */
export const defaultOverlayCaps: OverlayCaps = { maxRecords: 200, idleMs: 24 * 3600_000 };

/** The accounts' overlays a store works on: its own, or one a sharing wrapper also reaches (shared-overlay.ts). */
export const overlayAccountsFor = (clock: Clock, caps?: Partial<OverlayCaps>) =>
  createOverlayAccounts({ clock, idleMs: { ...defaultOverlayCaps, ...caps }.idleMs });

export function createOverlayStore(
  live: StorePort,
  { clock, caps, accounts = overlayAccountsFor(clock, caps) }: { clock: Clock; caps?: Partial<OverlayCaps>; accounts?: OverlayAccounts },
): EmbeddedStore {
  const { maxRecords } = { ...defaultOverlayCaps, ...caps };
  const lock = createKeyedLock();
  const { peek, own, active, clear, nextEventId, latestEventId } = accounts;

  const changesOf = <F extends Family>(accountId: string, family: F): Changes<Records[F]> | undefined =>
    peek(accountId)?.records[family] as Changes<Records[F]> | undefined;

  /** Read-modify-write of one record under the family's lock for the account (the port's promise). */
  function updateRecord<F extends Family, R>(
    accountId: string,
    family: F,
    id: string,
    readLive: () => Promise<Records[F] | null>,
    update: (current: Records[F] | null) => { next: Records[F] | null; result: R },
  ): Promise<R> {
    return lock(`${family}:${accountId}`, async () => {
      const base = await readLive();
      const current = applied(base, changesOf(accountId, family)?.get(id));
      const { next, result } = update(current);
      const change = changeFrom(base, next);
      if (change || changesOf(accountId, family)?.has(id)) {
        remember(own(accountId).records[family] as Changes<Records[F]>, id, change, maxRecords);
      }
      return result;
    });
  }

  /** The named entries as a test key sees them, and the count of every entry it sees. */
  async function peekOverlaid(accountId: string, keys: readonly string[]): Promise<MemoryPeek> {
    const changes = changesOf(accountId, 'memory');
    const changed = [...(changes?.keys() ?? [])];
    const base = await live.peekMemory(accountId, [...new Set([...keys, ...changed])]);
    let count = base.count;
    for (const k of changed) count += Number(applied(base.found.get(k) ?? null, changes?.get(k)) !== null) - Number(base.found.has(k));
    const found = new Map<string, MemoryEntry>();
    for (const k of keys) {
      const e = applied(base.found.get(k) ?? null, changes?.get(k));
      if (e) found.set(k, e);
    }
    return { found, count };
  }
  const liveStanding = async (accountId: string, id: string) => (await live.listStanding(accountId)).find((r) => r.id === id) ?? null;

  const store: StoreOps = {
    async createAccount(account) {
      await updateRecord(
        account.id,
        'accounts',
        account.id,
        () => live.getAccount(account.id),
        (current) => {
          if (current) throw new PresenceError('conflict', `account ${account.id} exists`);
          return { next: account, result: undefined };
        },
      );
    },
    async getAccount(id) {
      return applied(await live.getAccount(id), changesOf(id, 'accounts')?.get(id));
    },
    async listAccounts() {
      const rows = await live.listAccounts();
      const out = rows.flatMap((a) => applied(a, changesOf(a.id, 'accounts')?.get(a.id)) ?? []);
      const known = new Set(rows.map((a) => a.id));
      for (const o of active()) for (const [id, c] of o.records.accounts) if (!known.has(id) && 'whole' in c) out.push(c.whole);
      return out;
    },
    updateAccount(id, update) {
      return updateRecord(
        id,
        'accounts',
        id,
        () => live.getAccount(id),
        (current) => {
          if (!current) return { next: null, result: null };
          const next = copy(update(current));
          return { next, result: next };
        },
      );
    },

    async insertKey(key) {
      await updateRecord(
        key.account_id,
        'keys',
        key.id,
        () => live.getKey(key.id),
        () => ({ next: key, result: undefined }),
      );
    },
    async getKey(id) {
      for (const o of active()) {
        const c = o.records.keys.get(id);
        if (c) return applied(await live.getKey(id), c);
      }
      return live.getKey(id);
    },
    async findKeyBySecretHash(hash) {
      const found = await live.findKeyBySecretHash(hash);
      const current = found && (await store.getKey(found.id));
      if (current?.secrets.some((s) => s.hash === hash)) return current;
      for (const o of active()) {
        for (const [id, c] of o.records.keys) {
          const k = 'whole' in c ? c.whole : 'patch' in c && c.patch.secrets ? applied(await live.getKey(id), c) : null;
          if (k?.secrets.some((s) => s.hash === hash)) return k;
        }
      }
      return null;
    },
    async listKeys(accountId) {
      return overlaid(await live.listKeys(accountId), changesOf(accountId, 'keys'), (k) => k.id);
    },
    async updateKey(id, update) {
      const found = await store.getKey(id);
      if (!found) return null;
      return updateRecord(
        found.account_id,
        'keys',
        id,
        () => live.getKey(id),
        (current) => {
          if (!current) return { next: null, result: null };
          const next = copy(update(current));
          return { next, result: next };
        },
      );
    },

    async readMemory(accountId) {
      return overlaid(await live.readMemory(accountId), changesOf(accountId, 'memory'), (e) => e.key);
    },
    async peekMemory(accountId, keys) {
      return peekOverlaid(accountId, keys);
    },
    changeMemory(accountId, keys, decide) {
      return lock(`memory:${accountId}`, async () => {
        const current = await peekOverlaid(accountId, keys);
        const { put = [], remove = [], result } = decide(current);
        const live_ = await live.peekMemory(accountId, [...put.map((e) => e.key), ...remove]);
        const mine = own(accountId).records.memory;
        for (const e of put) remember(mine, e.key, changeFrom(live_.found.get(e.key) ?? null, e), maxRecords);
        for (const k of remove) remember(mine, k, changeFrom(live_.found.get(k) ?? null, null), maxRecords);
        return result;
      });
    },
    async memoryDue() {
      // The compactor works on live memory only; a test key's entries are the overlay's to drop.
      return [];
    },

    async appendEvent(accountId, event) {
      const o = own(accountId);
      const id = nextEventId(accountId);
      const stored = copy({ id, ...event } as StoredEvent);
      o.events.push(stored);
      if (o.events.length > maxRecords) o.events.splice(0, o.events.length - maxRecords);
      return stored;
    },
    async eventsAfter(accountId, afterId, limit) {
      return (peek(accountId)?.events ?? []).filter((e) => e.id > afterId).slice(0, limit);
    },
    async eventBounds(accountId) {
      return { oldest: peek(accountId)?.events[0]?.id ?? null, latest: latestEventId(accountId) };
    },
    async pruneEvents(accountId, keepLast, olderThan) {
      const o = peek(accountId);
      if (!o) return 0;
      const before = o.events.length;
      // The newest is kept even when stale, as every store keeps it (the log's bounds go on).
      o.events = o.events.filter((e, i) => i === before - 1 || (i >= before - keepLast && e.at >= olderThan));
      return before - o.events.length;
    },

    async pruneEventsOlderThan(olderThan) {
      let dropped = 0;
      for (const o of active()) {
        const before = o.events.length;
        o.events = o.events.filter((e, i) => i === before - 1 || e.at >= olderThan);
        dropped += before - o.events.length;
      }
      return dropped;
    },

    async getIdempotencyRecord(accountId, key) {
      return peek(accountId)?.answers.get(key) ?? null;
    },
    async putIdempotencyRecord(accountId, record) {
      remember(own(accountId).answers, record.key, copy(record), maxRecords);
    },
    async pruneIdempotency(olderThan) {
      let dropped = 0;
      for (const o of active()) {
        for (const [key, r] of o.answers) {
          if (r.created_at >= olderThan) continue;
          o.answers.delete(key);
          dropped++;
        }
      }
      return dropped;
    },

    async getWallet(accountId) {
      return applied(await live.getWallet(accountId), changesOf(accountId, 'wallets')?.get(accountId));
    },
    createWallet(wallet) {
      return updateRecord(
        wallet.account_id,
        'wallets',
        wallet.account_id,
        () => live.getWallet(wallet.account_id),
        (current) => (current ? { next: current, result: current } : { next: wallet, result: copy(wallet) }),
      );
    },
    async markWalletFunded(accountId) {
      await updateRecord(
        accountId,
        'wallets',
        accountId,
        () => live.getWallet(accountId),
        (current) => ({ next: current && { ...current, funded: true }, result: undefined }),
      );
    },

    async createIntent(intent) {
      const o = own(intent.account_id);
      if (o.intents.byId.has(intent.id)) throw new PresenceError('conflict', `intent ${intent.id} exists`);
      o.intents.put(copy(intent));
      if (o.intents.byId.size > maxRecords) {
        // The index has no removal: rebuild it without the oldest record (a few hundred at most).
        const kept = createIntentIndex();
        for (const r of o.intents.list().slice(o.intents.byId.size - maxRecords)) kept.put(r);
        o.intents = kept;
      }
    },
    async getIntent(accountId, id) {
      return peek(accountId)?.intents.byId.get(id) ?? null;
    },
    async findIntentByConfirmId(accountId, confirmId) {
      return peek(accountId)?.intents.byConfirmId(confirmId) ?? null;
    },
    async findIntentByIdempotencyKey(accountId, key) {
      return peek(accountId)?.intents.byIdempotencyKey(key) ?? null;
    },
    async transitionIntent(accountId, id, from, to, patch = {}) {
      const current = peek(accountId)?.intents.byId.get(id);
      if (!current || !from.includes(current.state)) return null;
      const next = copy({ ...current, ...patch, state: to } as IntentRecord);
      own(accountId).intents.put(next);
      return next;
    },
    async listIntents(accountId, filter = {}) {
      return peek(accountId)?.intents.list(filter.states) ?? [];
    },
    async spentSince(accountId, since) {
      return peek(accountId)?.intents.spentSince(since) ?? 0n;
    },
    async intentsInStates(states) {
      return [...active()].flatMap((o) => o.intents.list(states));
    },
    async dueHolds(now) {
      // Only accounts whose overlay is active: bounded by what test keys did in the last day.
      return [...active()].flatMap((o) => o.intents.list(['held']).filter((r) => (r.expires_at ?? 0) <= now));
    },

    appendThread(accountId, entry) {
      // Numbered after the live thread as it stands, so the entry sorts where it was said.
      return lock(`thread:${accountId}`, async () => {
        const [liveLast] = await live.readThread(accountId, { limit: 1 });
        const o = own(accountId);
        const id = Math.max(liveLast?.id ?? 0, o.thread.at(-1)?.id ?? 0) + 1;
        const stored = copy({ ...entry, id } as ThreadEntry);
        o.thread.push(stored);
        if (o.thread.length > maxRecords) o.thread.splice(0, o.thread.length - maxRecords);
        return stored;
      });
    },
    async readThread(accountId, { before, limit }) {
      const page = await live.readThread(accountId, { before, limit });
      const mine = (peek(accountId)?.thread ?? []).filter((e) => before === undefined || e.id < before);
      if (mine.length === 0) return page;
      // A live entry written later may share a number with one of ours: then time decides.
      const merged = [...page, ...mine].sort((a, b) => a.id - b.id || a.at - b.at);
      return merged.slice(Math.max(0, merged.length - limit));
    },

    async putStanding(record) {
      await updateRecord(
        record.account_id,
        'standing',
        record.id,
        () => liveStanding(record.account_id, record.id),
        () => ({ next: record, result: undefined }),
      );
    },
    async listStanding(accountId) {
      return overlaid(await live.listStanding(accountId), changesOf(accountId, 'standing'), (r) => r.id);
    },
    async dueStanding() {
      // A test key's standing intents never fire (standing-service.ts): nothing is due here.
      return [];
    },
    updateStanding(accountId, id, update) {
      return updateRecord(
        accountId,
        'standing',
        id,
        () => liveStanding(accountId, id),
        (current) => {
          if (!current) return { next: null, result: null };
          const next = copy(update(current));
          return { next, result: next };
        },
      );
    },

    async putLink(link, now) {
      const o = own(link.account_id);
      for (const [hash, l] of o.links) if (l.expires_at <= now) o.links.delete(hash);
      remember(o.links, link.hash, copy(link), maxRecords);
    },
    async redeemLink(hash, now) {
      for (const o of active()) {
        const l = o.links.get(hash);
        if (!l || l.redeemed_at !== null || l.expires_at <= now) continue;
        const next = copy({ ...l, redeemed_at: now });
        o.links.set(hash, next);
        return next;
      }
      return null;
    },

    async countOutstandingLinks(accountId, now) {
      // Like redeemLink: only the overlay's own codes (link codes are made on the live store).
      return [...(peek(accountId)?.links.values() ?? [])].filter((l) => l.redeemed_at === null && l.expires_at > now).length;
    },
  };
  return {
    sharing: 'embedded',
    ...store,
    atomically: immediateUnits(store), // a test key's writes stay in memory: nothing to commit together
    async close() {
      // The live store is its owner's to close; this only lets go of what it kept.
      clear();
    },
  };
}
