// Locks that hold across every server of a deployment (a wallet's nonces, the devnet's
// deployer). The embedded store has one process, so a keyed lock in memory is the whole
// cluster; the PostgreSQL adapter implements the same port with advisory locks
// (cluster/postgres/postgres-locks.ts).
import { createKeyedLock } from './keyed-lock';

export type ClusterLocks = {
  /** Runs `work` while no other holder of `name`, in this process or any other server, runs. */
  withLock<T>(name: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

export function createLocalLocks(): ClusterLocks {
  const lock = createKeyedLock();
  return {
    withLock: (name, work) => lock(name, work),
    close: () => lock.drain(),
  };
}
