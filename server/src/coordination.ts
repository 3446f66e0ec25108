// How a server coordinates with the other servers of its deployment: its id, deployment-wide
// locks (advisory locks), Idempotency-Key leases, leader election for the background work,
// and the book where a shared devnet's deployment is recorded. (What servers tell each other — events, key and
// account changes, rate counts — is core's cluster port, cluster/postgres/cluster.ts.)
// Embedded: this process is the whole deployment, so locks are in memory, it always leads,
// and the book is a file.
// On PostgreSQL all of it runs on the server's one pool (open-store.ts): leadership keeps one
// of its connections reserved, the locks hold at most lockConnections(pool) of them.
import { hostname } from 'node:os';
import { type ClusterLocks, createLocalLocks, createMemoryLeases, type IdempotencyLeases } from '@presence/core';
import {
  createPostgresDeploymentBook,
  createPostgresIdempotencyLeases,
  createPostgresLocks,
  type Database,
  type DeploymentBook,
  lockConnections,
  startLeadership,
} from '@presence/core/postgres';
import type { Config } from './config';

export type Coordination = {
  /** PRESENCE_SERVER_ID, else host:pid: names this server in health, logs and metrics. */
  serverId: string;
  /** On a database, shared with other servers. */
  shared: boolean;
  locks: ClusterLocks;
  /** Idempotency-Key leases: who runs the first request of a key (in a table every server sees, on PostgreSQL). */
  leases: IdempotencyLeases;
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

export async function openCoordination(config: Config, sql: Database | null, log: (line: string) => void): Promise<Coordination> {
  const serverId = config.PRESENCE_SERVER_ID ?? defaultServerId();
  if (!sql) {
    const locks = createLocalLocks();
    return {
      serverId,
      shared: false,
      locks,
      leases: createMemoryLeases(),
      book: null,
      isLeader: () => true,
      peers: async () => 0,
      resign: async () => undefined,
      close: () => locks.close(),
    };
  }
  const locks = createPostgresLocks({ sql, max: lockConnections(config.PRESENCE_DATABASE_POOL) });
  const book = createPostgresDeploymentBook({ sql });
  const leases = createPostgresIdempotencyLeases({ sql });
  const leadership = await startLeadership({
    sql,
    serverId,
    onChange: (leader) => log(leader ? `server ${serverId} leads the background work` : `server ${serverId} no longer leads`),
    onError: (e) => log(`leader election: ${(e as Error).message}`),
  });
  return {
    serverId,
    shared: true,
    locks,
    leases,
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
