// What a server shares with the other servers of its deployment. On PostgreSQL: a server id,
// cluster-wide locks (advisory locks), leader election for the background work, and the book
// where a shared devnet's deployment is recorded. Embedded: this process is the whole
// cluster, so locks are in memory, it always leads, and the book is a file.
import { hostname } from 'node:os';
import { type ClusterLocks, createLocalLocks } from '@presence/core';
import { createPostgresDeploymentBook, createPostgresLocks, type DeploymentBook, startLeadership } from '@presence/core/postgres';
import type { Config } from './config';

export type ClusterRuntime = {
  /** PRESENCE_SERVER_ID, else host:pid: names this server in health, logs and metrics. */
  serverId: string;
  /** On a database, shared with other servers. */
  shared: boolean;
  locks: ClusterLocks;
  /** Where a shared devnet's deployment is recorded: the database; null embedded (the devnet package keeps a file). */
  book: DeploymentBook | null;
  isLeader(): boolean;
  /** Other servers connected now (0 embedded). */
  peers(): Promise<number>;
  /** Hands leadership over at once (graceful shutdown does this before draining). */
  resign(): Promise<void>;
  close(): Promise<void>;
};

export const defaultServerId = () => `${hostname()}:${process.pid}`;

export async function openCluster(config: Config, log: (line: string) => void): Promise<ClusterRuntime> {
  const serverId = config.PRESENCE_SERVER_ID ?? defaultServerId();
  const url = config.PRESENCE_DATABASE_URL;
  if (!url) {
    const locks = createLocalLocks();
    return {
      serverId,
      shared: false,
      locks,
      book: null,
      isLeader: () => true,
      peers: async () => 0,
      resign: async () => undefined,
      close: () => locks.close(),
    };
  }
  const locks = createPostgresLocks({ url });
  const book = createPostgresDeploymentBook({ url });
  const leadership = await startLeadership({
    url,
    serverId,
    onChange: (leader) => log(leader ? `server ${serverId} leads the background work` : `server ${serverId} no longer leads`),
    onError: (e) => log(`leader election: ${(e as Error).message}`),
  });
  return {
    serverId,
    shared: true,
    locks,
    book,
    isLeader: () => leadership.isLeader(),
    peers: () => leadership.peers(),
    resign: () => leadership.stop(),
    async close() {
      await leadership.stop();
      await locks.close();
      await book.close();
    },
  };
}
