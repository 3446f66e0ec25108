// The store contract against the embedded adapter. A data directory has one owner, so the
// "several servers" of the concurrency cases are one store shared by concurrent callers. It
// runs again with one idle account per family in memory, so the accounts the contract moves
// between are dropped and read again from disk as it goes (about a hundred drops a run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// Through the package's own export, as an adapter outside this repository imports it.
import { describeDueWorkContract, describeStoreContract, type OpenStoreHarness } from '@presence/core/testing';
import { createLowdbStore } from './lowdb/lowdb-store';

const lowdbHarness =
  (maxResidentAccounts?: number): OpenStoreHarness =>
  async (keystore) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'store-contract-'));
    let store = await createLowdbStore({ dataDir, keystore, maxResidentAccounts });
    return {
      store,
      peers: async (n) => Array.from({ length: n }, () => store),
      async reopen() {
        await store.close();
        store = await createLowdbStore({ dataDir, keystore, maxResidentAccounts });
        return store;
      },
      async close() {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  };
describeStoreContract('lowdb', lowdbHarness());
describeDueWorkContract('lowdb', lowdbHarness());
describeStoreContract('lowdb, one idle account in memory', lowdbHarness(1));
describeDueWorkContract('lowdb, one idle account in memory', lowdbHarness(1));
