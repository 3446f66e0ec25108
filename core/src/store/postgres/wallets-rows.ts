// Wallets on PostgreSQL (table wallets): one row per account, the first writer wins.
import { WalletRecord } from '../documents';
import type { WalletsPort } from '../wallets-port';
import { type Doc, json } from './records';
import type { Runner } from './unit-of-work';

export function walletsRows(run: Runner): WalletsPort {
  const { sql } = run;
  const wallets: WalletsPort = {
    async getWallet(accountId) {
      const [row] = await sql<(Doc & { funded: boolean })[]>`SELECT doc, funded FROM wallets WHERE account_id = ${accountId}`;
      return row ? WalletRecord.parse({ ...(row.doc as object), funded: row.funded }) : null;
    },
    async createWallet(wallet) {
      const inserted = await sql`INSERT INTO wallets (account_id, funded, doc)
      VALUES (${wallet.account_id}, ${wallet.funded}, ${json(wallet)}::text::json)
      ON CONFLICT (account_id) DO NOTHING RETURNING account_id`;
      if (inserted.length > 0) return wallet;
      // Another writer won; under read committed its row is visible once its insert committed.
      const existing = await wallets.getWallet(wallet.account_id);
      if (!existing) throw new Error(`wallet of ${wallet.account_id} vanished`);
      return existing;
    },
    async markWalletFunded(accountId) {
      await sql`UPDATE wallets SET funded = true WHERE account_id = ${accountId}`;
    },
  };
  return wallets;
}
