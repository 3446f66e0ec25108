// The accounts family of the store port (store-port.ts): one record per account.
import type { AccountRecord } from './documents';

export interface AccountsPort {
  createAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;
  updateAccount(id: string, update: (account: AccountRecord) => AccountRecord): Promise<AccountRecord | null>;
}
