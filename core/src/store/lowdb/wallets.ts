// Wallets: one per account, in data/wallets/<account>.json (the private key sealed by the
// wallet layer before it gets here).
import { z } from 'zod';
import { WalletRecord } from '../documents';
import type { WalletsPort } from '../wallets-port';
import { accountDocuments, type StoreContext } from './per-account';

const WalletDoc = z.object({ wallet: WalletRecord.nullable() });

export type WalletsFamily = WalletsPort;

export function openWallets(ctx: StoreContext): WalletsFamily {
  const walletDoc = accountDocuments(ctx, 'wallets', WalletDoc, { wallet: null });
  return {
    async getWallet(accountId) {
      return (await walletDoc.read(accountId)).wallet;
    },
    async createWallet(wallet) {
      return walletDoc.mutate(wallet.account_id, (d) => {
        if (d.wallet) return { data: d, result: d.wallet };
        return { data: { wallet }, result: wallet };
      });
    },
    async markWalletFunded(accountId) {
      await walletDoc.mutate(accountId, (d) => ({
        data: { wallet: d.wallet && { ...d.wallet, funded: true } },
        result: undefined,
      }));
    },
  };
}
