// The store contract for accounts: created once, read, listed in order, updated under the record's
// lock. One family's section of the port; describeStoreContract (../store-contract.ts) runs every
// family's, and an adapter may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import { PresenceError } from '../../src/errors/presence-error';
import type { AccountRecord } from '../../src/store/documents';
import type { StorePort } from '../../src/store/store-port';
import { account, fanOut, type StoreHarness } from '../fixtures';
import type { ContractContext } from './context';

export function accountsContract(ctx: ContractContext) {
  ctx.section('accounts', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

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
}
