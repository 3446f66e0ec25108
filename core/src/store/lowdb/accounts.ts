// Accounts. The index (accounts.json: id, name, creation time) is the one document shared by
// all accounts, written only when an account is created; what an account changes (presence,
// preferences, policy) is in its own document, data/accounts/<id>.json.
import path from 'node:path';
import { z } from 'zod';
import { PresenceError } from '../../errors/presence-error';
import { AccountIndexEntry, AccountRecord } from '../documents';
import type { StorePort } from '../store-port';
import { accountDocuments, type StoreContext } from './per-account';

const AccountIndexDoc = z.object({ accounts: z.array(AccountIndexEntry) });
const AccountDoc = z.object({ account: AccountRecord.nullable() });

export type AccountsFamily = Pick<StorePort, 'createAccount' | 'getAccount' | 'listAccounts' | 'updateAccount'> & {
  /** Every account's id, in creation order. */
  ids(): string[];
};

export async function openAccounts(ctx: StoreContext): Promise<AccountsFamily> {
  const { documents, lock } = ctx;
  const index = await documents.open(path.join(ctx.root, 'accounts.json'), AccountIndexDoc, { accounts: [] });
  const accountDoc = accountDocuments(ctx, 'accounts', AccountDoc, { account: null });
  const known = new Set(index.db.data.accounts.map((a) => a.id));

  return {
    ids: () => index.db.data.accounts.map((a) => a.id),
    async createAccount(account) {
      await lock('accounts:create', async () => {
        if (known.has(account.id)) throw new PresenceError('conflict', `account ${account.id} exists`);
        // Its document first: an index entry always has one. A crash in between leaves a
        // document nothing points to, which creating the account again overwrites.
        await documents.mutate(await accountDoc(account.id), () => ({ data: { account }, result: undefined }));
        const { id, name, created_at } = account;
        await documents.mutate(index, (d) => ({ data: { accounts: [...d.accounts, { id, name, created_at }] }, result: undefined }));
        known.add(id);
      });
    },
    async getAccount(id) {
      return known.has(id) ? (await accountDoc(id)).db.data.account : null;
    },
    async listAccounts() {
      const out: AccountRecord[] = [];
      for (const { id } of index.db.data.accounts) {
        const a = (await accountDoc(id)).db.data.account;
        if (a) out.push(a);
      }
      return out;
    },
    async updateAccount(id, update) {
      if (!known.has(id)) throw new PresenceError('not_found', `no account ${id}`);
      return documents.mutate(await accountDoc(id), (d) => {
        if (!d.account) throw new PresenceError('not_found', `no account ${id}`);
        const next = update(d.account);
        // The index keeps these; they never change.
        if (next.id !== id || next.name !== d.account.name || next.created_at !== d.account.created_at)
          throw new Error(`account ${id}: id, name and created_at are fixed`);
        return { data: { account: next }, result: next };
      });
    },
  };
}
