// The master key against the store it is used on, before anything is served: a server started
// with another PRESENCE_MASTER_KEY would pass /v1/ready and then fail every wallet write and
// Idempotency-Key replay (an intent left `executing`). A mismatch stops the start with one
// line naming the variable (a ConfigError: exit 2).
import {
  fileMasterKeyCheck,
  type Keystore,
  type MasterKeyCheckPort,
  MasterKeyMismatch,
  type StorePort,
  verifyMasterKey,
} from '@presence/core';
import { postgresMasterKeyCheck } from '@presence/core/postgres';
import { type Config, ConfigError } from './config';
import { databaseFailure } from './open-store';

/** How many accounts a store without a check value is searched for a wallet to try the key on. */
const PROBE_ACCOUNTS = 50;

export const masterKeyCheckFor = (config: Config): MasterKeyCheckPort =>
  config.PRESENCE_DATABASE_URL ? postgresMasterKeyCheck(config.PRESENCE_DATABASE_URL) : fileMasterKeyCheck(config.PRESENCE_DATA_DIR);

/** Whether the wallets already stored (the first found among the first accounts) open with this key. */
export async function walletsOpenWith(store: StorePort, keystore: Keystore): Promise<boolean> {
  for (const account of (await store.listAccounts()).slice(0, PROBE_ACCOUNTS)) {
    const wallet = await store.getWallet(account.id);
    if (!wallet) continue;
    try {
      keystore.open(account.id, wallet.address, wallet.key);
      return true;
    } catch {
      return false;
    }
  }
  return true;
}

/** The variable as a line names it: the key itself is a secret, and may come from the data directory's file. */
export const masterKeyName = (config: Config) =>
  config.PRESENCE_MASTER_KEY
    ? 'PRESENCE_MASTER_KEY (value not shown: it is a secret)'
    : `PRESENCE_MASTER_KEY (unset: the key in ${config.PRESENCE_DATA_DIR}/master.key was used)`;

export async function checkMasterKey(config: Config, keystore: Keystore, store: StorePort) {
  const port = masterKeyCheckFor(config);
  try {
    await verifyMasterKey(port, keystore, () => walletsOpenWith(store, keystore));
  } catch (e) {
    if (e instanceof MasterKeyMismatch) throw new ConfigError(`invalid ${masterKeyName(config)}: ${e.message}`);
    throw config.PRESENCE_DATABASE_URL ? databaseFailure(config.PRESENCE_DATABASE_URL, e) : e;
  } finally {
    await port.close?.();
  }
}
