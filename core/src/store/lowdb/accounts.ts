// Accounts. The index (accounts.jsonl: id, name, creation time) is shared by all accounts: one
// line appended when an account is created, so creating one costs the same with 10 or 100,000
// accounts. What an account changes (presence, preferences, policy) is in its own document,
// data/accounts/<id>.json. An index kept by an earlier version as one document
// (accounts.json, rewritten whole on every create) becomes the log at the first start.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { PresenceError } from '../../errors/presence-error';
import type { AccountsPort } from '../accounts-port';
import { createAppendLog } from '../append-log';
import { AccountIndexEntry, AccountRecord } from '../documents';
import { readJson } from './files';
import { accountDocuments, type StoreContext } from './per-account';

const AccountIndexDoc = z.object({ accounts: z.array(AccountIndexEntry) });
const AccountDoc = z.object({ account: AccountRecord.nullable() });

export type AccountsFamily = AccountsPort & {
  /** Every account's id, in creation order. */
  ids(): string[];
  close(): Promise<void>;
};

export async function openAccounts(ctx: StoreContext): Promise<AccountsFamily> {
  const { lock } = ctx;
  const log = createAppendLog(path.join(ctx.root, 'accounts.jsonl'), AccountIndexEntry, { fsync: ctx.fsync });
  const legacy = path.join(ctx.root, 'accounts.json');
  if (existsSync(legacy)) {
    // The log first, durably, then the document goes: a crash in between redoes this.
    const { accounts } = AccountIndexDoc.parse(await readJson(legacy));
    await log.rewrite(() => accounts);
    await rm(legacy, { force: true });
  }
  // Only the ids stay in memory (in creation order): names and times are in each account's
  // own document, and 100,000 accounts then cost a string each, not an object each.
  const index: string[] = [];
  const known = new Set<string>();
  for (const a of await log.readAll()) {
    if (known.has(a.id)) continue;
    known.add(a.id);
    index.push(a.id);
  }
  const accountDoc = accountDocuments(ctx, 'accounts', AccountDoc, { account: null });

  return {
    ids: () => [...index],
    close: () => log.close(),
    async createAccount(account) {
      await lock('accounts:create', async () => {
        if (known.has(account.id)) throw new PresenceError('conflict', `account ${account.id} exists`);
        // Its document first: an index entry always has one. A crash in between leaves a
        // document nothing points to, which creating the account again overwrites.
        await accountDoc.mutate(account.id, () => ({ data: { account }, result: undefined }));
        const { id, name, created_at } = account;
        await log.append([{ id, name, created_at }], () => {
          index.push(id);
          known.add(id);
        });
      });
    },
    async getAccount(id) {
      return known.has(id) ? (await accountDoc.read(id)).account : null;
    },
    async listAccounts() {
      const out: AccountRecord[] = [];
      for (const id of index) {
        const { account: a } = await accountDoc.read(id);
        if (a) out.push(a);
      }
      return out;
    },
    async updateAccount(id, update) {
      if (!known.has(id)) return null;
      return accountDoc.mutate(id, (d) => {
        if (!d.account) return { data: d, result: null };
        const next = update(d.account);
        // The index keeps these; they never change.
        if (next.id !== id || next.name !== d.account.name || next.created_at !== d.account.created_at)
          throw new Error(`account ${id}: id, name and created_at are fixed`);
        return { data: { account: next }, result: next };
      });
    },
  };
}
