// Accounts on PostgreSQL (table accounts): the record whole; a change announced on
// `presence_accounts` at commit, so every server drops what it keeps of the account.
import type { TransactionSql } from 'postgres';
import type { AccountsPort } from '../accounts-port';
import { AccountRecord } from '../documents';
import { ACCOUNTS_CHANNEL } from './channels';
import { type Doc, insertNew, json, lockedUpdate } from './records';
import type { Runner } from './unit-of-work';

export function accountsRows(run: Runner): AccountsPort {
  const { sql, begin } = run;
  return {
    async createAccount(account) {
      await insertNew(sql`INSERT INTO accounts (id, doc) VALUES (${account.id}, ${json(account)}::text::json)`, `account ${account.id}`);
    },
    async getAccount(id) {
      const [row] = await sql<Doc[]>`SELECT doc FROM accounts WHERE id = ${id}`;
      return row ? AccountRecord.parse(row.doc) : null;
    },
    async listAccounts() {
      const rows = await sql<Doc[]>`SELECT doc FROM accounts ORDER BY seq`;
      return rows.map((r) => AccountRecord.parse(r.doc));
    },
    async updateAccount(id, update) {
      const read = (tx: TransactionSql) => tx<Doc[]>`SELECT doc FROM accounts WHERE id = ${id} FOR UPDATE`;
      // Announced at commit: every server drops what it keeps of the account.
      const write = (tx: TransactionSql, next: AccountRecord) =>
        tx`UPDATE accounts SET doc = ${json(next)}::text::json WHERE id = ${id} RETURNING pg_notify(${ACCOUNTS_CHANNEL}, id)`;
      return lockedUpdate(begin, { read, parse: (doc) => AccountRecord.parse(doc), write }, update);
    },
  };
}
