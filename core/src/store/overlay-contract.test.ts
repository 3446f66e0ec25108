// The test keys' overlay held to the store contract, in the sections it honours: it answers
// every read and write of the port over a live store it never writes to, so a service cannot
// tell it from a store. One process holds it (peers are the one overlay) and it is not
// durable (a restart forgets it, by design), so the reopen test is not run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeStoreContract } from '../../testing/index';
import { createManualClock } from '../clock/clock';
import { createLowdbStore } from './lowdb/lowdb-store';
import { createOverlayStore } from './overlay-store';

describeStoreContract(
  'test-key overlay over lowdb',
  async (keystore) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'overlay-contract-'));
    const live = await createLowdbStore({ dataDir, keystore });
    const overlay = createOverlayStore(live, { clock: createManualClock(0), caps: { maxRecords: 10_000 } });
    return {
      store: overlay,
      peers: async (n) => Array.from({ length: n }, () => overlay),
      reopen: async () => {
        throw new Error('the overlay is not durable');
      },
      close: async () => {
        await overlay.close();
        await live.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
  { durable: false },
);
