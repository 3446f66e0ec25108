// Accounts on PostgreSQL (table accounts): the record whole; a change announced on
// `presence_accounts` at commit, so every server drops what it keeps of the account.
import type { AccountsPort } from '../accounts-port';
import { AccountRecord } from '../documents';
import { ACCOUNTS_CHANNEL } from './channels';
import { callerSays, type Doc, insertNew, json } from './records';
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
      return begin(async (tx) => {
        const [row] = await tx<Doc[]>`SELECT doc FROM accounts WHERE id = ${id} FOR UPDATE`;
        if (!row) return null;
        const next = callerSays(() => update(AccountRecord.parse(row.doc)));
        // Announced at commit: every server drops what it keeps of the account.
        await tx`UPDATE accounts SET doc = ${json(next)}::text::json WHERE id = ${id} RETURNING pg_notify(${ACCOUNTS_CHANNEL}, id)`;
        return next;
      });
    },
  };
}
