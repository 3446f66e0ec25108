// One wallet per account, created on first use. On the devnet a new wallet is funded.
// (Router approvals are sent by the first swap that needs one: signers/approvals.ts.)

import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Clock } from '../../clock/clock';
import { iso } from '../../clock/clock';
import { createKeyedLock } from '../../concurrency/keyed-lock';
import type { Keystore, SealedKey } from '../../keystore/keystore';
import type { WalletRecord } from '../../store/documents';
import type { StorePort } from '../../store/store-port';

export type Wallets = ReturnType<typeof createWallets>;

/** As many as signer.ts keeps derived accounts for. */
const OPENED_KEYS = 256;
const sameSealed = (a: SealedKey, b: SealedKey) => a.iv === b.iv && a.tag === b.tag && a.data === b.data;

export function createWallets({
  store,
  keystore,
  clock,
  fund,
}: {
  store: StorePort;
  keystore: Keystore;
  clock: Clock;
  /** Devnet only: gives a new wallet its starting balances. */
  fund?: (address: Address, privateKey: `0x${string}`) => Promise<void>;
}) {
  const lock = createKeyedLock();
  /**
   * Keys opened for recently used wallets, by account, with the sealed text they came from: a
   * fresh AES-GCM context per intent cost about a tenth of a millisecond on the hot path. The
   * signer keeps the same keys in memory already (signer.ts caches accounts by key); a wallet
   * sealed anew (another master key) no longer matches and is opened again.
   */
  const opened = new Map<string, { sealed: SealedKey; key: `0x${string}` }>();
  function openKey(accountId: string, w: WalletRecord): `0x${string}` {
    const hit = opened.get(accountId);
    if (hit && sameSealed(hit.sealed, w.key)) return hit.key;
    const key = keystore.open(accountId, w.address, w.key);
    opened.delete(accountId);
    if (opened.size >= OPENED_KEYS) opened.delete(opened.keys().next().value as string);
    opened.set(accountId, { sealed: w.key, key });
    return key;
  }

  /** The account's wallet record, made (and on the devnet funded) on first use. */
  async function ensureRecord(accountId: string): Promise<WalletRecord> {
    const existing = await store.getWallet(accountId);
    if (existing?.funded || (existing && !fund)) return existing;
    return lock(accountId, async () => {
      let w = await store.getWallet(accountId);
      if (!w) {
        const pk = generatePrivateKey();
        const address = privateKeyToAccount(pk).address;
        w = await store.createWallet({
          account_id: accountId,
          address,
          key: keystore.seal(accountId, address, pk),
          created_at: iso(clock.now()),
          funded: false,
        });
      }
      if (!w.funded && fund) {
        await fund(w.address as Address, keystore.open(accountId, w.address, w.key));
        await store.markWalletFunded(accountId);
      }
      return w;
    });
  }
  const ensure = async (accountId: string): Promise<{ address: Address }> => ({
    address: (await ensureRecord(accountId)).address as Address,
  });

  return {
    ensure,
    async address(accountId: string): Promise<Address> {
      return (await ensure(accountId)).address;
    },
    /** The address and signing key (one read), for the executor only; the key is never logged, never returned by any route. */
    async signer(accountId: string): Promise<{ address: Address; key: `0x${string}` }> {
      const w = await ensureRecord(accountId);
      return { address: w.address as Address, key: openKey(accountId, w) };
    },
  };
}
