// The wallets family of the store port (store-port.ts): one wallet per account.
import type { WalletRecord } from './documents';

export interface WalletsPort {
  getWallet(accountId: string): Promise<WalletRecord | null>;
  /** Stores the wallet unless one exists; answers whichever is stored (first writer wins). */
  createWallet(wallet: WalletRecord): Promise<WalletRecord>;
  markWalletFunded(accountId: string): Promise<void>;
}
