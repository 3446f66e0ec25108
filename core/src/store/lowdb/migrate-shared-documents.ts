// Earlier versions kept every account in shared documents: accounts.json held each account's
// preferences and policy, keys.json, wallets.json and links.json every account's records. So
// one account that grew made every other account's writes slower (each write rewrote the
// whole file). This moves such a data directory to per-account documents before the store
// opens anything:
//   accounts.json (full records) → accounts/<id>.json, and accounts.json becomes the index
//   keys.json                   → keys/<account>.json
//   wallets.json                → wallets/<account>.json
//   links.json                  → removed: its codes were hashed with plain SHA-256, which
//                                 a copy of the file gives away; they stop working (they
//                                 live 10 minutes by default) and new codes are keyed.
// Each step writes the new documents durably, then replaces or removes the old one: a crash
// part-way leaves the old document, and the next start does that step again from it (nothing
// was served in between, so the old document is still the whole truth).
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AccountRecord, KeyRecord, WalletRecord } from '../documents';
import { fsyncDir, PRIVATE_DIR, writeFileAtomic } from '../durable-file';
import { accountFile, readJson } from './files';

const LegacyAccounts = z.object({ accounts: z.array(AccountRecord) });
const LegacyKeys = z.object({ keys: z.array(KeyRecord) });
const LegacyWallets = z.object({ wallets: z.array(WalletRecord) });

const isLegacyAccounts = (raw: unknown) =>
  typeof raw === 'object' &&
  raw !== null &&
  Array.isArray((raw as { accounts?: unknown }).accounts) &&
  (raw as { accounts: unknown[] }).accounts.some((a) => typeof a === 'object' && a !== null && 'presence' in a);

export async function migrateSharedDocuments(root: string, { fsync = true }: { fsync?: boolean } = {}): Promise<void> {
  const write = (file: string, data: unknown) => writeFileAtomic(file, JSON.stringify(data, null, 2), { fsync });
  const remove = async (file: string) => {
    await rm(file, { force: true });
    if (fsync) await fsyncDir(path.dirname(file));
  };
  const family = (name: string) => mkdirSync(path.join(root, name), { recursive: true, mode: PRIVATE_DIR });

  const accountsFile = path.join(root, 'accounts.json');
  const rawAccounts = await readJson(accountsFile);
  if (isLegacyAccounts(rawAccounts)) {
    family('accounts');
    const { accounts } = LegacyAccounts.parse(rawAccounts);
    for (const account of accounts) await write(accountFile(root, 'accounts', account.id, '.json'), { account });
    await write(accountsFile, { accounts: accounts.map(({ id, name, created_at }) => ({ id, name, created_at })) });
  }

  const keysFile = path.join(root, 'keys.json');
  const rawKeys = await readJson(keysFile);
  if (rawKeys !== null) {
    family('keys');
    const byAccount = new Map<string, KeyRecord[]>();
    for (const k of LegacyKeys.parse(rawKeys).keys) {
      const keys = byAccount.get(k.account_id) ?? [];
      keys.push(k);
      byAccount.set(k.account_id, keys);
    }
    for (const [accountId, keys] of byAccount) await write(accountFile(root, 'keys', accountId, '.json'), { keys });
    await remove(keysFile);
  }

  const walletsFile = path.join(root, 'wallets.json');
  const rawWallets = await readJson(walletsFile);
  if (rawWallets !== null) {
    family('wallets');
    for (const wallet of LegacyWallets.parse(rawWallets).wallets)
      await write(accountFile(root, 'wallets', wallet.account_id, '.json'), { wallet });
    await remove(walletsFile);
  }

  await remove(path.join(root, 'links.json'));
}
