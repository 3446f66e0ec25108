// The leases contract in memory: one map, as one process holds it.

import { describeLeasesContract } from '../../testing/leases-contract';
import { createMemoryLeases } from './idempotency-leases';

describeLeasesContract('memory', async () => {
  const leases = createMemoryLeases();
  return { peers: async (n) => Array.from({ length: n }, () => leases), close: async () => undefined };
});
