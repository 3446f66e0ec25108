// The store contract against the embedded adapter. A data directory has one owner, so the
// "several servers" of the concurrency cases are one store shared by concurrent callers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// Through the package's own export, as an adapter outside this repository imports it.
import { describeDueWorkContract, describeStoreContract, type OpenStoreHarness } from '@presence/core/testing';
import { createLowdbStore } from './lowdb/lowdb-store';

const lowdbHarness: OpenStoreHarness = async (keystore) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'store-contract-'));
  let store = await createLowdbStore({ dataDir, keystore });
  return {
    store,
    peers: async (n) => Array.from({ length: n }, () => store),
    async reopen() {
      await store.close();
      store = await createLowdbStore({ dataDir, keystore });
      return store;
    },
    async close() {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
describeStoreContract('lowdb', lowdbHarness);
describeDueWorkContract('lowdb', lowdbHarness);
