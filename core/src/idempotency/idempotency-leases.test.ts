// The leases contract in memory: one map, as one process holds it.
import { createMemoryLeases } from './idempotency-leases';
import { describeLeasesContract } from './leases-contract';

describeLeasesContract('memory', async () => {
  const leases = createMemoryLeases();
  return { peers: async (n) => Array.from({ length: n }, () => leases), close: async () => undefined };
});
