// One wallet per account, created on first use. On the devnet a new wallet is funded.
// (Router approvals are sent by the first swap that needs one: signers/approvals.ts.)

import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ChainUnavailableError } from '../../chain/errors';
import type { Clock } from '../../clock/clock';
import { iso } from '../../clock/clock';
import { createKeyedLock } from '../../concurrency/keyed-lock';
import { isPresenceError } from '../../errors/presence-error';
import type { Keystore } from '../../keystore/keystore';
import type { WalletRecord } from '../../store/documents';
import type { StorePort } from '../../store/store-port';

export type Wallets = ReturnType<typeof createWallets>;

/** As many as signer.ts keeps derived accounts for. */
const KNOWN_WALLETS = 256;

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
   * Recently used wallets, by account, once complete (funded where funding applies), with the
   * key once opened. Nothing in a complete wallet record changes while a server runs (its key
   * is re-sealed only with every server stopped: docs/operations.md), and an intent asked the
   * store for it twice and opened its key with a fresh AES-GCM context: a round trip each on
   * PostgreSQL, about a tenth of a millisecond of CPU for the key. The signer keeps the same
   * keys in memory already (signer.ts caches accounts by key).
   */
  const known = new Map<string, { record: WalletRecord; key?: `0x${string}` }>();
  const remember = (record: WalletRecord) => {
    if (known.size >= KNOWN_WALLETS) known.delete(known.keys().next().value as string);
    known.set(record.account_id, { record });
    return record;
  };

  /**
   * The devnet's faucet, whose failure (its node slow or gone, a receipt not in time) is the
   * chain's being unavailable: a 503 to retry, never a 500. The record stays unfunded, so the
   * next use funds it again.
   */
  async function fundOnce(w: WalletRecord) {
    try {
      await fund?.(w.address as Address, keystore.open(w.account_id, w.address, w.key));
    } catch (e) {
      if (isPresenceError(e)) throw e;
      throw new ChainUnavailableError('the devnet could not fund this new wallet in time; try again', { cause: e });
    }
  }

  /** The account's wallet record, made (and on the devnet funded) on first use. */
  async function ensureRecord(accountId: string): Promise<WalletRecord> {
    const hit = known.get(accountId);
    if (hit) return hit.record;
    const existing = await store.getWallet(accountId);
    if (existing?.funded || (existing && !fund)) return remember(existing);
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
        await fundOnce(w);
        await store.markWalletFunded(accountId);
        w = { ...w, funded: true };
      }
      return remember(w);
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
      const entry = known.get(accountId);
      // Opened once per remembered wallet (a record just read past a full map is opened each time).
      if (entry?.record !== w) return { address: w.address as Address, key: keystore.open(accountId, w.address, w.key) };
      entry.key ??= keystore.open(accountId, w.address, w.key);
      return { address: w.address as Address, key: entry.key };
    },
  };
}
