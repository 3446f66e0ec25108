// A devnet shared by many servers: an anvil someone else runs (`presence-server devnet`, with
// the same arguments as the embedded one) at a known RPC URL. The first server to attach
// deploys the market and records the deployment in a book every server reads (the database
// on PostgreSQL, a file for a lone embedded server); the book is held exclusively while it is
// read, checked and written, so only one server ever deploys on a chain. Later servers reuse
// the record when its code is on the chain, and redeploy when it is not (anvil was restarted
// without its state).
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createPublicClient, http } from 'viem';
import { loadArtifacts } from './artifacts';
import { DEVNET_CHAIN_ID, deployerRpc, deployMarket, fundWallet } from './deploy';
import { DEPLOY_VERSION, type Deployment, DeploymentSchema, readDeployment, writeDeployment } from './deployment';
import { type Devnet, hasCode } from './devnet';

/** Where the deployment on a shared devnet is recorded. */
export type DeploymentBook = {
  /** Runs `work` with the recorded document (or null) while no other server can; records what it answers, if anything. */
  exclusive(rpcUrl: string, work: (recorded: unknown) => Promise<Deployment | null>): Promise<void>;
};

/** The book of a lone embedded server: a file (only that server's process uses it). */
export function fileDeploymentBook(path: string): DeploymentBook {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    exclusive(_rpcUrl, work) {
      const run = queue.then(async () => {
        const next = await work(await readDeployment(path));
        if (!next) return;
        // A fresh data directory has no devnet/ yet (only the embedded devnet makes it); private as the rest.
        await mkdir(dirname(path), { recursive: true, mode: 0o700 });
        await writeDeployment(path, next);
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

export type AttachOptions = {
  rpcUrl: string;
  book: DeploymentBook;
  /** Funding sends from the one deployer account: servers take turns under this lock. */
  locks: { withLock<T>(name: string, work: () => Promise<T>): Promise<T> }; // core's ClusterLocks fits
  log?: (line: string) => void;
  timeoutMs?: number;
};

/** Attaches to a running devnet anvil; stop() leaves it running (it is not ours). */
export async function attachDevnet({ rpcUrl, book, locks, log, timeoutMs = 10_000 }: AttachOptions): Promise<Devnet> {
  const t0 = Date.now();
  const client = createPublicClient({ cacheTime: 0, transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
  const chainId = await client.getChainId();
  if (chainId !== DEVNET_CHAIN_ID) {
    throw new Error(
      `PRESENCE_RPC_URL answers chain ${chainId}, not the devnet's ${DEVNET_CHAIN_ID}: start it with \`presence-server devnet\``,
    );
  }
  const rpc = deployerRpc(client, timeoutMs);
  let deployment: Deployment | null = null;
  let reused = false;
  await book.exclusive(rpcUrl, async (recorded) => {
    const parsed = DeploymentSchema.safeParse(recorded);
    if (parsed.success && parsed.data.devnet.version === DEPLOY_VERSION) {
      const d = parsed.data;
      const addresses = [d.dex.factory, d.dex.router, ...d.tokens.map((t) => t.address), ...Object.values(d.devnet.pairs)];
      if (await hasCode(client, addresses)) {
        deployment = d;
        reused = true;
        return null;
      }
      log?.('devnet: the recorded deployment has no code on this chain; redeploying');
    }
    log?.(`devnet: deploying Uniswap V2, WETH, USDC, DAI, SCAM on ${rpcUrl} and seeding pools`);
    deployment = await deployMarket(rpc, loadArtifacts());
    return deployment;
  });
  const ready = deployment as Deployment | null;
  if (!ready) throw new Error('devnet: no deployment');
  const started = { reused, ms: Date.now() - t0 };
  log?.(`devnet: attached to chain ${DEVNET_CHAIN_ID} on ${rpcUrl} (${reused ? 'recorded deployment' : 'deployed now'}, ${started.ms} ms)`);
  let stopped = false;
  return {
    rpcUrl,
    chainId: DEVNET_CHAIN_ID,
    deployment: ready,
    pid: 0,
    exited: new Promise<number | null>(() => undefined),
    // Its chain is someone else's process: nothing here restarts it, or gives up on it.
    gaveUp: new Promise<string>(() => undefined),
    onRestart() {},
    started,
    fund(address) {
      if (stopped) return Promise.reject(new Error('devnet is detached'));
      return locks.withLock('devnet:deployer', () => fundWallet(rpc, ready, address));
    },
    async stop() {
      stopped = true;
    },
  };
}
