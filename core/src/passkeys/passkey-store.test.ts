// The passkey store's contract, on both adapters: credentials keyed by the authenticator's id
// (a counter that only grows), and tickets whose challenge and use are taken once — also by
// two stores racing on one database, as two servers would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useMigratedPostgres } from '../../testing/migrated-postgres';
import { createLowdbPasskeyStore } from '../store/lowdb/passkeys';
import { createPostgresPasskeyStore } from '../store/postgres/passkeys';
import type { PasskeyCredentialRecord, PasskeyTicketRecord } from './passkey-records';
import type { PasskeyStorePort } from './passkey-store-port';

const credential = (over: Partial<PasskeyCredentialRecord> = {}): PasskeyCredentialRecord => ({
  credential_id: 'cred-a',
  id: 'pk_aaaaaaaaaaaaaaaa',
  account_id: 'acc_1',
  name: 'phone',
  public_key: 'AQID',
  counter: 0,
  transports: ['internal'],
  created_at: 1000,
  last_used_at: null,
  deleted_at: null,
  ...over,
});
const ticket = (over: Partial<PasskeyTicketRecord> = {}): PasskeyTicketRecord => ({
  hash: 'h1',
  kind: 'approve',
  account_id: 'acc_1',
  key_kind: 'live',
  confirm_id: 'cf_aaaaaaaaaaaaaaaa',
  name: null,
  expires_at: 10_000,
  challenge: null,
  used_at: null,
  created_at: 1000,
  ...over,
});

/** Opens a store, and a second one on the same data (a second server, where the adapter has one). */
type Harness = () => Promise<{ store: PasskeyStorePort; peer: () => Promise<PasskeyStorePort>; reopen: () => Promise<PasskeyStorePort> }>;

function describeContract(name: string, open: Harness) {
  describe(`passkey store: ${name}`, () => {
    it('keeps credentials by their id, once, and lists an account’s oldest first', async () => {
      const { store, reopen } = await open();
      expect(await store.insertCredential(credential())).toBe(true);
      expect(await store.insertCredential(credential({ account_id: 'acc_2' }))).toBe(false);
      await store.insertCredential(credential({ credential_id: 'cred-b', id: 'pk_bbbbbbbbbbbbbbbb', created_at: 2000 }));
      await store.insertCredential(credential({ credential_id: 'cred-c', id: 'pk_cccccccccccccccc', account_id: 'acc_2' }));
      expect((await store.listCredentials('acc_1')).map((c) => c.id)).toEqual(['pk_aaaaaaaaaaaaaaaa', 'pk_bbbbbbbbbbbbbbbb']);
      expect((await store.findCredential('cred-c'))?.account_id).toBe('acc_2');
      expect(await store.deleteCredential('acc_2', 'pk_aaaaaaaaaaaaaaaa', 3000)).toBeNull();
      expect((await store.deleteCredential('acc_1', 'pk_aaaaaaaaaaaaaaaa', 3000))?.id).toBe('pk_aaaaaaaaaaaaaaaa');
      expect(await store.findCredential('cred-a')).toBeNull();
      await store.close();
      const again = await reopen();
      expect((await again.listCredentials('acc_1')).map((c) => c.id)).toEqual(['pk_bbbbbbbbbbbbbbbb']);
      await again.close();
    });

    it('records a use only when the counter grows (or stays 0 for an authenticator without one)', async () => {
      const { store } = await open();
      await store.insertCredential(credential());
      expect((await store.recordUse('cred-a', 0, 5000))?.last_used_at).toBe(5000);
      expect((await store.recordUse('cred-a', 3, 6000))?.counter).toBe(3);
      expect(await store.recordUse('cred-a', 3, 7000)).toBeNull();
      expect(await store.recordUse('cred-a', 2, 7000)).toBeNull();
      expect(await store.recordUse('cred-a', 0, 7000)).toBeNull();
      expect((await store.findCredential('cred-a'))?.counter).toBe(3);
      await store.close();
    });

    it('gives a ticket’s challenge once, and uses a ticket once, before it expires', async () => {
      const { store } = await open();
      expect((await store.putTicket(ticket())).challenge).toBeNull();
      // First writer wins: the same hash again answers the stored ticket.
      expect((await store.putTicket(ticket({ account_id: 'acc_9' }))).account_id).toBe('acc_1');
      expect(await store.takeChallenge('h1', 2000)).toBeNull();
      await store.setChallenge('h1', 'c1', 2000);
      await store.setChallenge('h1', 'c2', 2000);
      expect((await store.takeChallenge('h1', 2000))?.challenge).toBe('c2');
      expect(await store.takeChallenge('h1', 2000)).toBeNull();
      await store.setChallenge('h1', 'c3', 2000);
      expect(await store.takeChallenge('h1', 10_000)).toBeNull(); // expired
      expect((await store.useTicket('h1', 3000))?.used_at).toBe(3000);
      expect(await store.useTicket('h1', 3000)).toBeNull();
      expect(await store.setChallenge('h1', 'c4', 3000)).toBeNull();
      expect(await store.getTicket('nope')).toBeNull();
      await store.close();
    });

    it('counts open enroll links and prunes expired tickets', async () => {
      const { store } = await open();
      await store.putTicket(ticket({ hash: 'e1', kind: 'enroll', confirm_id: null }));
      await store.putTicket(ticket({ hash: 'e2', kind: 'enroll', confirm_id: null, expires_at: 3000 }));
      await store.putTicket(ticket({ hash: 'e3', kind: 'enroll', confirm_id: null, account_id: 'acc_2' }));
      await store.putTicket(ticket({ hash: 'a1' }));
      expect(await store.countOpenEnrollTickets('acc_1', 2000)).toBe(2);
      expect(await store.countOpenEnrollTickets('acc_1', 4000)).toBe(1);
      await store.useTicket('e1', 4000);
      expect(await store.countOpenEnrollTickets('acc_1', 4000)).toBe(0);
      expect(await store.pruneTickets(5000)).toBe(1);
      expect(await store.getTicket('e2')).toBeNull();
      expect(await store.getTicket('a1')).not.toBeNull();
      await store.close();
    });

    it('two stores taking one challenge at once: one gets it', async () => {
      const { store, peer } = await open();
      const other = await peer();
      await store.putTicket(ticket());
      for (let i = 0; i < 5; i++) {
        await store.setChallenge('h1', `c${i}`, 2000);
        const got = await Promise.all([store.takeChallenge('h1', 2000), other.takeChallenge('h1', 2000)]);
        expect(got.filter((t) => t?.challenge === `c${i}`)).toHaveLength(1);
      }
      const used = await Promise.all([store.useTicket('h1', 3000), other.useTicket('h1', 3000)]);
      expect(used.filter(Boolean)).toHaveLength(1);
      await Promise.all([store.close(), other === store ? undefined : other.close()]);
    });
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
describeContract('lowdb', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'presence-passkeys-'));
  dirs.push(dataDir);
  const store = await createLowdbPasskeyStore({ dataDir, fsync: false });
  // One process owns a data directory: its "second server" is itself.
  return { store, peer: async () => store, reopen: () => createLowdbPasskeyStore({ dataDir, fsync: false }) };
});

const pg = useMigratedPostgres();
describeContract('postgres', async () => {
  const url = await pg.fresh();
  return {
    store: await createPostgresPasskeyStore({ url }),
    peer: () => createPostgresPasskeyStore({ url }),
    reopen: () => createPostgresPasskeyStore({ url }),
  };
});
