// The store port's contract, run against every adapter (lowdb-contract.test.ts,
// postgres/postgres-store.test.ts): each operation's answers, and what must hold under
// concurrency. "Peers" are handles on the same data as other servers would hold them:
// separate connection pools for PostgreSQL; for lowdb the one store, since a data directory
// has one owner. A test here describes the port, never one adapter's internals.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PresenceError } from '../errors/presence-error';
import { createKeystore } from '../keystore/keystore';
import type {
  AccountRecord,
  IdempotencyRecord,
  KeyRecord,
  LinkRecord,
  MemoryEntry,
  NewThreadEntry,
  StandingRecord,
  WalletRecord,
} from './documents';
import { intentRecord } from './intent-fixture';
import type { StorePort } from './store-port';

export type StoreHarness = {
  /** The store under test, on fresh, empty data. */
  store: StorePort;
  /** `n` handles on the same data, as `n` servers would hold them. */
  peers(n: number): Promise<StorePort[]>;
  /** Closes every handle and opens the store again on the same data. */
  reopen(): Promise<StorePort>;
  /** Closes every handle and removes the data. */
  close(): Promise<void>;
};

/** What an adapter's test provides: a fresh harness per test, sealing answers under `keystore`. */
export type OpenStoreHarness = (keystore: ReturnType<typeof createKeystore>) => Promise<StoreHarness>;

const account = (id: string, name = id): AccountRecord => ({
  id,
  name,
  created_at: new Date(0).toISOString(),
  presence: { name: 'p', model: 'local', preferences: { n: 0 } },
  policy: null,
});
const apiKey = (id: string, accountId: string, hashes: string[]): KeyRecord => ({
  id,
  account_id: accountId,
  kind: 'live',
  name: id,
  scopes: ['talk'],
  secrets: hashes.map((hash, i) => ({ hash, last4: hash.slice(-4), valid_until: i < hashes.length - 1 ? 1000 : null })),
  state: 'active',
  created_at: new Date(0).toISOString(),
  last_used_at: null,
  revoked_at: null,
});
const memo = (key: string, note = ''): MemoryEntry => ({
  key,
  tier: 'pinned',
  pinned_by: 'user',
  weight: 1,
  note,
  touches: 1,
  last_seen: 0,
});
const answer = (key: string, created_at: number, body = '{"ok":true}'): IdempotencyRecord => ({
  key,
  fingerprint: `fp-${key}`,
  status: 201,
  headers: { 'content-type': 'application/json', location: '/v1/x' },
  body,
  created_at,
});
const wallet = (accountId: string, address: string): WalletRecord => ({
  account_id: accountId,
  address,
  key: { iv: 'aXY=', tag: 'dGFn', data: address },
  created_at: new Date(0).toISOString(),
  funded: false,
});
const turn = (user: string, at = 1): NewThreadEntry => ({
  kind: 'turn',
  at,
  user,
  reply: `re: ${user}`,
  used: [{ tool: 'remember', args: { key: 'topic:x' } }],
  touched: ['topic:x'],
  acted: false,
  tx: null,
  confirm_id: null,
  idempotency_key: null,
});
/** A standing intent for store tests (a price trigger unless `patch` says otherwise). */
export const standing = (accountId: string, id: string, patch: Partial<StandingRecord> = {}): StandingRecord => ({
  id,
  account_id: accountId,
  text: 'tell me when WETH is below 2500',
  trigger: { kind: 'price', token: 'WETH', op: 'below', threshold_usd: '2500' },
  action: { kind: 'notify' },
  may_act: false,
  armed: true,
  next_at: null,
  fired_count: 0,
  last_fired_at: null,
  state: 'active',
  created_at: 1,
  created_by: null,
  pending: [],
  ...patch,
});
const link = (hash: string, expires_at: number): LinkRecord => ({
  hash,
  account_id: 'a',
  scopes: ['talk'],
  created_at: 0,
  expires_at,
  redeemed_at: null,
});
const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);
/** Runs `each` for every (peer, i) pair at once: the writes of `peers` servers interleaved. */
const fanOut = <T>(peers: StorePort[], perPeer: number, each: (store: StorePort, i: number) => Promise<T>) =>
  Promise.all(peers.flatMap((p, k) => range(perPeer, 0).map((i) => each(p, k * perPeer + i))));

export function describeStoreContract(name: string, open: OpenStoreHarness) {
  describe(`store contract: ${name}`, () => {
    const keystore = createKeystore(randomBytes(32));
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(async () => {
      h = await open(keystore);
      store = h.store;
    });
    afterEach(async () => {
      await h.close();
    });

    describe('accounts', () => {
      it('creates, reads and lists accounts in creation order; a second create of an id is refused (409 conflict)', async () => {
        expect(await store.getAccount('a')).toBeNull();
        for (const id of ['c', 'a', 'b']) await store.createAccount(account(id));
        expect((await store.listAccounts()).map((a) => a.id)).toEqual(['c', 'a', 'b']);
        expect(await store.getAccount('a')).toEqual(account('a'));
        await expect(store.createAccount(account('a', 'again'))).rejects.toMatchObject({ type: 'conflict' });
        expect((await store.getAccount('a'))?.name).toBe('a');
      });

      it('updateAccount stores and answers what the updater returned; an unknown id answers null', async () => {
        await store.createAccount(account('a'));
        // id, name and created_at are the account's identity (lowdb keeps them in its index):
        // what an update changes is what is inside.
        const next = await store.updateAccount('a', (a) => ({ ...a, presence: { ...a.presence, name: 'renamed' } }));
        expect(next?.presence.name).toBe('renamed');
        expect((await store.getAccount('a'))?.presence.name).toBe('renamed');
        expect(await store.updateAccount('nobody', (a) => a)).toBeNull();
      });

      it('an updater’s own error reaches the caller unchanged and nothing is written', async () => {
        await store.createAccount(account('a'));
        const refused = new PresenceError('conflict', 'the updater said no');
        await expect(
          store.updateAccount('a', () => {
            throw refused;
          }),
        ).rejects.toBe(refused);
        expect(await store.getAccount('a')).toEqual(account('a'));
      });

      it('concurrent updates from several servers lose none (read-modify-write under the record’s lock)', async () => {
        await store.createAccount(account('a'));
        await fanOut(await h.peers(4), 10, (s) =>
          s.updateAccount('a', (a) => ({
            ...a,
            presence: { ...a.presence, preferences: { n: (a.presence.preferences.n as number) + 1 } },
          })),
        );
        expect((await store.getAccount('a'))?.presence.preferences.n).toBe(40);
      });

      it('editing a record a read answered does not change what is stored', async () => {
        await store.createAccount(account('a'));
        const read = (await store.getAccount('a')) as AccountRecord;
        try {
          (read as { name: string }).name = 'edited';
        } catch {
          // Frozen snapshots refuse the edit; either way the store must not see it.
        }
        expect((await store.getAccount('a'))?.name).toBe('a');
      });
    });

    describe('keys', () => {
      it('inserts, reads, lists per account in creation order, and finds a key by any of its secret hashes', async () => {
        await store.insertKey(apiKey('k2', 'a', ['h-old', 'h-new']));
        await store.insertKey(apiKey('k1', 'a', ['h-1']));
        await store.insertKey(apiKey('kb', 'b', ['h-b']));
        expect((await store.listKeys('a')).map((k) => k.id)).toEqual(['k2', 'k1']);
        expect((await store.listKeys('b')).map((k) => k.id)).toEqual(['kb']);
        expect(await store.listKeys('nobody')).toEqual([]);
        expect(await store.getKey('k1')).toEqual(apiKey('k1', 'a', ['h-1']));
        expect(await store.getKey('nope')).toBeNull();
        expect((await store.findKeyBySecretHash('h-old'))?.id).toBe('k2');
        expect((await store.findKeyBySecretHash('h-new'))?.id).toBe('k2');
        expect(await store.findKeyBySecretHash('h-unknown')).toBeNull();
      });

      it('updateKey re-indexes the secret hashes: a rotated-away hash stops finding the key', async () => {
        await store.insertKey(apiKey('k', 'a', ['h-1']));
        const rotated = await store.updateKey('k', (k) => ({ ...k, secrets: [{ hash: 'h-2', last4: 'h-2', valid_until: null }] }));
        expect(rotated?.secrets.map((s) => s.hash)).toEqual(['h-2']);
        expect((await store.findKeyBySecretHash('h-2'))?.id).toBe('k');
        expect(await store.findKeyBySecretHash('h-1')).toBeNull();
        expect((await store.getKey('k'))?.secrets.map((s) => s.hash)).toEqual(['h-2']);
        expect(await store.updateKey('nope', (k) => k)).toBeNull();
      });

      it('concurrent revocation and use stamps from several servers both land', async () => {
        await store.insertKey(apiKey('k', 'a', ['h']));
        const [p, q] = await h.peers(2);
        await Promise.all([
          (p as StorePort).updateKey('k', (k) => ({ ...k, state: 'revoked', revoked_at: 'r' })),
          (q as StorePort).updateKey('k', (k) => ({ ...k, last_used_at: 'u' })),
        ]);
        expect(await store.getKey('k')).toMatchObject({ state: 'revoked', revoked_at: 'r', last_used_at: 'u' });
      });
    });

    describe('memory', () => {
      it('an account without memory reads empty; changeMemory sees the named entries and the count, and writes rows', async () => {
        expect(await store.readMemory('a')).toEqual([]);
        const seen = await store.changeMemory('a', ['topic:x'], (c) => ({ put: [memo('topic:x')], result: c }));
        expect(seen).toEqual({ found: new Map(), count: 0 });
        await store.changeMemory('a', ['topic:y'], () => ({ put: [memo('topic:y', 'why')], result: undefined }));
        expect(await store.readMemory('a')).toEqual(expect.arrayContaining([memo('topic:x'), memo('topic:y', 'why')]));
        expect(await store.peekMemory('a', ['topic:y', 'topic:z'])).toEqual({
          found: new Map([['topic:y', memo('topic:y', 'why')]]),
          count: 2,
        });
        // Removing a key that is not stored changes nothing; the count follows what is kept.
        const after = await store.changeMemory('a', ['topic:x', 'topic:q'], (c) => ({ remove: ['topic:x', 'topic:q'], result: c.count }));
        expect(after).toBe(2);
        expect(await store.peekMemory('a', ['topic:x'])).toEqual({ found: new Map(), count: 1 });
        expect(await store.readMemory('b')).toEqual([]);
      });

      it('concurrent pins from several servers are all kept, and counted', async () => {
        await fanOut(await h.peers(4), 8, (s, i) =>
          s.changeMemory('a', [`topic:t${i}`], () => ({ put: [memo(`topic:t${i}`)], result: undefined })),
        );
        expect((await store.readMemory('a')).map((e) => e.key).sort()).toEqual(
          range(32, 0)
            .map((i) => `topic:t${i}`)
            .sort(),
        );
        expect((await store.peekMemory('a', [])).count).toBe(32);
      });

      it('concurrent changes of one entry each see the one before (none is lost)', async () => {
        await fanOut(await h.peers(4), 5, (s) =>
          s.changeMemory('a', ['topic:n'], ({ found }) => {
            const prev = found.get('topic:n');
            return { put: [{ ...memo('topic:n'), touches: (prev?.touches ?? 0) + 1 }], result: undefined };
          }),
        );
        expect((await store.peekMemory('a', ['topic:n'])).found.get('topic:n')?.touches).toBe(20);
      });

      it('text with any character, NUL and astral ones included, comes back as written', async () => {
        const note = 'nul:\u0000 quote:" backslash:\\ newline:\n emoji:🦊 rtl:\u202e';
        await store.changeMemory('a', ['topic:odd'], () => ({ put: [memo('topic:odd', note)], result: undefined }));
        const entry = await store.appendThread('a', turn(note));
        await store.appendEvent('a', { type: 'memory', data: { note }, at: 1 });
        store = await h.reopen();
        expect((await store.readMemory('a'))[0]?.note).toBe(note);
        expect(await store.readThread('a', { limit: 1 })).toEqual([entry]);
        expect((await store.eventsAfter('a', 0, 1))[0]?.data).toEqual({ note });
      });
    });

    describe('events', () => {
      it('ids count 1, 2, 3… per account; eventsAfter pages by id; bounds follow', async () => {
        expect(await store.eventBounds('a')).toEqual({ oldest: null, latest: 0 });
        for (const i of range(5)) expect((await store.appendEvent('a', { type: 'memory', data: { i }, at: i })).id).toBe(i);
        expect((await store.appendEvent('b', { type: 'memory', data: {}, at: 9 })).id).toBe(1);
        expect(await store.eventsAfter('a', 1, 2)).toEqual([
          { id: 2, type: 'memory', data: { i: 2 }, at: 2 },
          { id: 3, type: 'memory', data: { i: 3 }, at: 3 },
        ]);
        expect((await store.eventsAfter('a', 3, 100)).map((e) => e.id)).toEqual([4, 5]);
        expect(await store.eventsAfter('a', 5, 100)).toEqual([]);
        expect(await store.eventBounds('a')).toEqual({ oldest: 1, latest: 5 });
      });

      it('concurrent appends from several servers get strictly increasing ids with no gap or repeat', async () => {
        const appended = await fanOut(await h.peers(4), 25, (s, i) => s.appendEvent('a', { type: 'memory', data: { i }, at: i }));
        expect(appended.map((e) => e.id).sort((x, y) => x - y)).toEqual(range(100));
        const stored = await store.eventsAfter('a', 0, 1000);
        expect(stored.map((e) => e.id)).toEqual(range(100));
        // Each id carries the event that was answered with it.
        for (const e of appended) expect(stored[e.id - 1]).toEqual(e);
        expect(await store.eventBounds('a')).toEqual({ oldest: 1, latest: 100 });
      });

      it('pruneEvents keeps the newest keepLast, and never reuses an id', async () => {
        for (const i of range(10)) await store.appendEvent('a', { type: 'memory', data: {}, at: i });
        expect(await store.pruneEvents('a', 3, 0)).toBe(7);
        expect((await store.eventsAfter('a', 0, 100)).map((e) => e.id)).toEqual([8, 9, 10]);
        expect(await store.eventBounds('a')).toEqual({ oldest: 8, latest: 10 });
        expect((await store.appendEvent('a', { type: 'memory', data: {}, at: 11 })).id).toBe(11);
      });

      it('pruneEvents drops events older than the cut-off, and keeps the newest even when all are stale', async () => {
        for (const i of range(10, 0)) await store.appendEvent('a', { type: 'memory', data: {}, at: i });
        expect(await store.pruneEvents('a', 100, 5)).toBe(5);
        expect((await store.eventsAfter('a', 0, 100)).map((e) => e.at)).toEqual([5, 6, 7, 8, 9]);
        expect(await store.pruneEvents('a', 100, 1e15)).toBe(4);
        expect(await store.eventBounds('a')).toEqual({ oldest: 10, latest: 10 });
        expect(await store.pruneEvents('a', 0, 1e15)).toBe(0);
        expect(await store.pruneEvents('nobody', 0, 1e15)).toBe(0);
        store = await h.reopen();
        expect((await store.appendEvent('a', { type: 'memory', data: {}, at: 11 })).id).toBe(11);
      });

      it('pruning stale events while others append never drops a fresh one appended meanwhile', async () => {
        for (const i of range(20)) await store.appendEvent('a', { type: 'memory', data: { i }, at: 0 });
        const [p] = await h.peers(1);
        const [appended] = await Promise.all([
          Promise.all(range(10).map(() => (p as StorePort).appendEvent('a', { type: 'memory', data: {}, at: 100 }))),
          store.pruneEvents('a', 1000, 50),
        ]);
        const kept = (await store.eventsAfter('a', 0, 100)).map((e) => e.id);
        for (const e of appended) expect(kept).toContain(e.id);
        expect(kept).toEqual(range(kept.length, kept[0]));
      });
    });

    describe('idempotency answers', () => {
      it('stores and replays an answer per account; the same key put again answers the newest', async () => {
        expect(await store.getIdempotencyRecord('a', 'k')).toBeNull();
        await store.putIdempotencyRecord('a', answer('k', 1, '{"secret":"prs_live_x"}'));
        expect(await store.getIdempotencyRecord('a', 'k')).toEqual(answer('k', 1, '{"secret":"prs_live_x"}'));
        expect(await store.getIdempotencyRecord('b', 'k')).toBeNull();
        await store.putIdempotencyRecord('a', answer('k', 2, '{"n":2}'));
        expect((await store.getIdempotencyRecord('a', 'k'))?.body).toBe('{"n":2}');
      });

      it('pruneIdempotency drops answers older than the cut-off, across accounts, and answers how many', async () => {
        for (const id of ['a', 'b']) await store.createAccount(account(id));
        await store.putIdempotencyRecord('a', answer('old', 10));
        await store.putIdempotencyRecord('b', answer('old', 20));
        await store.putIdempotencyRecord('a', answer('fresh', 50));
        expect(await store.pruneIdempotency(50)).toBe(2);
        expect(await store.getIdempotencyRecord('a', 'old')).toBeNull();
        expect(await store.getIdempotencyRecord('b', 'old')).toBeNull();
        expect((await store.getIdempotencyRecord('a', 'fresh'))?.created_at).toBe(50);
        expect(await store.pruneIdempotency(50)).toBe(0);
      });
    });

    describe('wallets', () => {
      it('the first wallet stored for an account wins, even when several servers race', async () => {
        expect(await store.getWallet('a')).toBeNull();
        const answers = await fanOut(await h.peers(4), 2, (s, i) => s.createWallet(wallet('a', `0x${i}`)));
        const stored = await store.getWallet('a');
        expect(stored).not.toBeNull();
        for (const w of answers) expect(w).toEqual(stored);
        expect((await store.createWallet(wallet('a', '0xlater'))).address).toBe(stored?.address);
      });

      it('markWalletFunded marks that account’s wallet only', async () => {
        await store.createWallet(wallet('a', '0xa'));
        await store.createWallet(wallet('b', '0xb'));
        await store.markWalletFunded('a');
        expect(await store.getWallet('a')).toEqual({ ...wallet('a', '0xa'), funded: true });
        expect((await store.getWallet('b'))?.funded).toBe(false);
      });
    });

    describe('intents', () => {
      it('creates and reads intents, finds them by confirm id and Idempotency-Key, and refuses a second create of an id', async () => {
        const held = intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf_1', idempotency_key: 'idem-1' });
        await store.createIntent(held);
        await store.createIntent(intentRecord('in_2', 2));
        expect(await store.getIntent('a', 'in_1')).toEqual(held);
        expect(await store.getIntent('b', 'in_1')).toBeNull();
        expect(await store.findIntentByConfirmId('a', 'cf_1')).toEqual(held);
        expect(await store.findIntentByIdempotencyKey('a', 'idem-1')).toEqual(held);
        expect(await store.findIntentByConfirmId('a', 'cf_x')).toBeNull();
        expect(await store.findIntentByIdempotencyKey('b', 'idem-1')).toBeNull();
        await expect(store.createIntent(intentRecord('in_1', 3))).rejects.toMatchObject({ type: 'conflict' });
        expect(await store.getIntent('a', 'in_1')).toEqual(held);
      });

      it('transitionIntent moves only from the given states, applies the patch, and re-indexes it', async () => {
        await store.createIntent(intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf_1' }));
        expect(await store.transitionIntent('a', 'in_1', ['executing'], 'signed')).toBeNull();
        expect(await store.transitionIntent('a', 'in_x', ['held'], 'executing')).toBeNull();
        const moved = await store.transitionIntent('a', 'in_1', ['held', 'signed'], 'executing', { confirm_id: null, updated_at: 5 });
        expect(moved).toEqual(intentRecord('in_1', 1, { state: 'executing', confirm_id: null, updated_at: 5 }));
        expect(await store.getIntent('a', 'in_1')).toEqual(moved);
        expect(await store.findIntentByConfirmId('a', 'cf_1')).toBeNull();
      });

      it('transitionIntent is compare-and-set: of racing servers exactly one wins', async () => {
        await store.createIntent(intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf_1' }));
        const results = await fanOut(await h.peers(4), 3, (s, i) =>
          s.transitionIntent('a', 'in_1', ['held'], 'executing', { error: `winner ${i}` }),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        expect(await store.getIntent('a', 'in_1')).toEqual(winners[0]);
      });

      it('lists an account’s intents in creation order, optionally by state', async () => {
        await store.createIntent(intentRecord('in_3', 1, { state: 'done' }));
        await store.createIntent(intentRecord('in_1', 2, { state: 'held' }));
        await store.createIntent(intentRecord('in_2', 3, { state: 'failed' }));
        await store.createIntent(intentRecord('in_b', 4, { account_id: 'b' }));
        expect((await store.listIntents('a')).map((r) => r.id)).toEqual(['in_3', 'in_1', 'in_2']);
        expect((await store.listIntents('a', { states: ['held', 'failed'] })).map((r) => r.id)).toEqual(['in_1', 'in_2']);
        await store.transitionIntent('a', 'in_1', ['held'], 'denied');
        expect((await store.listIntents('a', { states: ['held'] })).map((r) => r.id)).toEqual([]);
      });

      it('spentSince sums what is executing, signed or done since then, by when it spent', async () => {
        const usd = (n: number) => (BigInt(n) * 10n ** 18n).toString();
        await store.createIntent(intentRecord('done', 1, { state: 'done', value_usd: usd(5), updated_at: 1, executed_at: 100 }));
        await store.createIntent(intentRecord('signed', 1, { state: 'signed', value_usd: usd(7), updated_at: 200 }));
        await store.createIntent(intentRecord('early', 1, { state: 'executing', value_usd: usd(13), updated_at: 50 }));
        await store.createIntent(intentRecord('held', 1, { state: 'held', value_usd: usd(11), updated_at: 300 }));
        await store.createIntent(intentRecord('failed', 1, { state: 'failed', value_usd: usd(17), updated_at: 300 }));
        await store.createIntent(intentRecord('other', 1, { account_id: 'b', state: 'done', value_usd: usd(19), executed_at: 300 }));
        expect(await store.spentSince('a', 100)).toBe(12n * 10n ** 18n);
        expect(await store.spentSince('a', 0)).toBe(25n * 10n ** 18n);
        expect(await store.spentSince('a', 201)).toBe(0n);
        expect(await store.spentSince('nobody', 0)).toBe(0n);
        await store.transitionIntent('a', 'early', ['executing'], 'failed', { updated_at: 400 });
        await store.transitionIntent('a', 'signed', ['signed'], 'done', { executed_at: 500, updated_at: 500 });
        await store.transitionIntent('a', 'held', ['held'], 'executing', { updated_at: 600 });
        expect(await store.spentSince('a', 0)).toBe(23n * 10n ** 18n);
        expect(await store.spentSince('a', 550)).toBe(11n * 10n ** 18n);
      });

      it('intentsInStates answers the matching intents of every account', async () => {
        for (const id of ['a', 'b']) await store.createAccount(account(id));
        await store.createIntent(intentRecord('a1', 1, { state: 'executing' }));
        await store.createIntent(intentRecord('a2', 2, { state: 'done' }));
        await store.createIntent(intentRecord('b1', 3, { account_id: 'b', state: 'signed' }));
        await store.createIntent(intentRecord('b2', 4, { account_id: 'b', state: 'held' }));
        const found = await store.intentsInStates(['executing', 'signed']);
        expect(found.map((r) => `${r.account_id}/${r.id}`).sort()).toEqual(['a/a1', 'b/b1']);
        expect(await store.intentsInStates(['expired'])).toEqual([]);
      });
    });

    describe('thread', () => {
      it('appends with per-account ids; readThread answers newest last and pages back with `before`', async () => {
        for (const i of range(10)) expect((await store.appendThread('a', turn(`q${i}`, i))).id).toBe(i);
        const said = await store.appendThread('b', { kind: 'presence', at: 1, text: 'WETH crossed', cause: 'standing:s1' });
        expect(said).toEqual({ kind: 'presence', at: 1, text: 'WETH crossed', cause: 'standing:s1', id: 1 });
        expect(await store.readThread('b', { limit: 5 })).toEqual([said]);
        const ids = async (opts: { before?: number; limit: number }) => (await store.readThread('a', opts)).map((e) => e.id);
        expect(await ids({ limit: 3 })).toEqual([8, 9, 10]);
        expect(await ids({ before: 8, limit: 3 })).toEqual([5, 6, 7]);
        expect(await ids({ before: 3, limit: 3 })).toEqual([1, 2]);
        expect(await ids({ before: 1, limit: 3 })).toEqual([]);
        expect(await ids({ before: 100, limit: 2 })).toEqual([9, 10]);
        expect((await store.readThread('a', { before: 2, limit: 1 }))[0]).toEqual({ ...turn('q1', 1), id: 1 });
        expect(await store.readThread('nobody', { limit: 3 })).toEqual([]);
      });

      it('concurrent appends from several servers get strictly increasing ids with no gap', async () => {
        const appended = await fanOut(await h.peers(4), 10, (s, i) => s.appendThread('a', turn(`q${i}`)));
        expect(appended.map((e) => e.id).sort((x, y) => x - y)).toEqual(range(40));
        const read = await store.readThread('a', { limit: 100 });
        expect(read.map((e) => e.id)).toEqual(range(40));
        for (const e of appended) expect(read[e.id - 1]).toEqual(e);
      });
    });

    describe('standing intents', () => {
      it('puts (replacing by id), lists per account, and updates', async () => {
        for (const id of ['a', 'b']) await store.createAccount(account(id));
        await store.putStanding(standing('a', 's1'));
        await store.putStanding(standing('a', 's2'));
        await store.putStanding(standing('b', 's3'));
        await store.putStanding({ ...standing('a', 's1'), armed: false });
        expect((await store.listStanding('a')).map((r) => [r.id, r.armed]).sort()).toEqual([
          ['s1', false],
          ['s2', true],
        ]);
        expect(await store.listStanding('nobody')).toEqual([]);
        const next = await store.updateStanding('b', 's3', (r) => ({ ...r, state: 'cancelled' }));
        expect(next).toEqual({ ...standing('b', 's3'), state: 'cancelled' });
        expect(await store.listStanding('b')).toEqual([next]);
        expect(await store.updateStanding('b', 's1', (r) => r)).toBeNull();
      });

      it('concurrent updates from several servers lose none', async () => {
        await store.putStanding(standing('a', 's1'));
        await fanOut(await h.peers(4), 5, (s) => s.updateStanding('a', 's1', (r) => ({ ...r, fired_count: r.fired_count + 1 })));
        expect((await store.listStanding('a'))[0]?.fired_count).toBe(20);
      });
    });

    describe('links', () => {
      it('a link redeems once, before it expires', async () => {
        await store.putLink(link('h1', 100), 0);
        await store.putLink(link('h2', 100), 0);
        expect(await store.redeemLink('nope', 10)).toBeNull();
        expect(await store.redeemLink('h1', 10)).toEqual({ ...link('h1', 100), redeemed_at: 10 });
        expect(await store.redeemLink('h1', 11)).toBeNull();
        expect(await store.redeemLink('h2', 100)).toBeNull();
      });

      it('of servers racing to redeem one link exactly one gets it', async () => {
        await store.putLink(link('h', 100), 0);
        const results = await fanOut(await h.peers(4), 3, (s) => s.redeemLink('h', 10));
        expect(results.filter((r) => r !== null)).toHaveLength(1);
      });

      it('putLink drops the links expired by then and keeps the others', async () => {
        await store.putLink(link('expired', 100), 0);
        await store.putLink(link('live', 300), 0);
        await store.putLink(link('new', 400), 150);
        // Redeeming "at" 50 would succeed for a stored link: the expired one must be gone.
        expect(await store.redeemLink('expired', 50)).toBeNull();
        expect(await store.redeemLink('live', 50)).not.toBeNull();
        expect(await store.redeemLink('new', 160)).not.toBeNull();
      });

      it("counts an account's links that are neither redeemed nor expired", async () => {
        expect(await store.countOutstandingLinks('a', 0)).toBe(0);
        await store.putLink(link('l1', 100), 0);
        await store.putLink(link('l2', 200), 0);
        await store.putLink(link('l3', 300), 0);
        await store.putLink({ ...link('other', 300), account_id: 'b' }, 0);
        expect(await store.countOutstandingLinks('a', 10)).toBe(3);
        await store.redeemLink('l2', 20);
        expect(await store.countOutstandingLinks('a', 20)).toBe(2);
        expect(await store.countOutstandingLinks('a', 100)).toBe(1);
        expect(await store.countOutstandingLinks('b', 100)).toBe(1);
        expect(await store.countOutstandingLinks('a', 300)).toBe(0);
      });
    });

    it('everything answered is still there after the store is opened again', async () => {
      await store.createAccount(account('a'));
      await store.insertKey(apiKey('k', 'a', ['h']));
      await store.changeMemory('a', ['topic:x'], () => ({ put: [memo('topic:x')], result: undefined }));
      await store.appendEvent('a', { type: 'memory', data: { x: 1 }, at: 1 });
      await store.putIdempotencyRecord('a', answer('k', 1));
      await store.createWallet(wallet('a', '0xa'));
      await store.createIntent(intentRecord('in_1', 1, { state: 'held', confirm_id: 'cf' }));
      await store.transitionIntent('a', 'in_1', ['held'], 'executing');
      await store.appendThread('a', turn('q'));
      await store.putStanding(standing('a', 's1'));
      await store.putLink(link('h', 100), 0);

      store = await h.reopen();
      expect(await store.getAccount('a')).toEqual(account('a'));
      expect((await store.findKeyBySecretHash('h'))?.id).toBe('k');
      expect(await store.readMemory('a')).toEqual([memo('topic:x')]);
      expect(await store.eventBounds('a')).toEqual({ oldest: 1, latest: 1 });
      expect(await store.getIdempotencyRecord('a', 'k')).toEqual(answer('k', 1));
      expect((await store.getWallet('a'))?.address).toBe('0xa');
      expect((await store.getIntent('a', 'in_1'))?.state).toBe('executing');
      expect((await store.appendThread('a', turn('q2'))).id).toBe(2);
      expect(await store.listStanding('a')).toEqual([standing('a', 's1')]);
      expect(await store.redeemLink('h', 1)).not.toBeNull();
    });
  });
}
