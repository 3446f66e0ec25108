// The chain a server works on: the embedded devnet; a shared devnet at PRESENCE_RPC_URL
// (deployed once, recorded in the deployment book for every server); or a real network from
// PRESENCE_RPC_URL + PRESENCE_TOKEN_LIST. Only the embedded devnet's chain can be lost while the
// server runs (`lost`: it gave up restarting its anvil); the others are other people's
// processes, whose outages are the RPC's to report.
import { join } from 'node:path';
import { type ChainRuntime, chain as chainLayer } from '@presence/core';
import { createViemChain } from '@presence/core/viem';
import type { Config } from './config';
import type { Coordination } from './coordination';
import type { DevnetPackage } from './load-devnet';

const RPC_TIMEOUT_MS = 5_000;

export type StartedChain = {
  runtime: ChainRuntime;
  stop(): Promise<void>;
  /** Resolves with why if the chain is gone for good (the embedded devnet gave up); pending otherwise. */
  lost: Promise<string>;
};

const never = new Promise<string>(() => undefined);

/**
 * `progress` tells the start; `log` gets what the embedded devnet says once it runs (an anvil
 * restarted under it, or given up on).
 */
export async function startChain(
  config: Config,
  devnetPackage: DevnetPackage | null,
  coordination: Coordination,
  { progress, log }: { progress: (line: string) => void; log: (line: string) => void },
): Promise<StartedChain> {
  if (devnetPackage && config.PRESENCE_RPC_URL) {
    progress(`attaching to the shared devnet at ${new URL(config.PRESENCE_RPC_URL).host}…`);
    const devnet = await devnetPackage.attachDevnet({
      rpcUrl: config.PRESENCE_RPC_URL,
      book: coordination.book ?? devnetPackage.fileDeploymentBook(join(config.PRESENCE_DATA_DIR, 'devnet', 'attached-deployment.json')),
      locks: coordination.locks,
      log: progress,
    });
    const tokenList = chainLayer.parseTokenList(devnet.deployment);
    const chain = createViemChain({ rpcUrl: devnet.rpcUrl, tokenList, timeoutMs: RPC_TIMEOUT_MS });
    return { runtime: { chain, tokenList, fund: (a) => devnet.fund(a) }, stop: () => devnet.stop(), lost: never };
  }
  if (devnetPackage) {
    const { startDevnet } = devnetPackage;
    progress('starting the embedded devnet (anvil + Uniswap V2)…');
    // Its start is told by the progress lines; its lines from then on are the log's.
    let running = false;
    const devnet = await startDevnet({ dataDir: config.PRESENCE_DATA_DIR, log: (line) => running && log(line) });
    running = true;
    progress(`devnet ready (${devnet.started.reused ? 'state restored' : 'freshly deployed'}) in ${devnet.started.ms} ms`);
    try {
      // Its deployment is a token list like any network's, held to the same rules.
      const tokenList = chainLayer.parseTokenList(devnet.deployment);
      const chain = createViemChain({ rpcUrl: devnet.rpcUrl, tokenList, timeoutMs: RPC_TIMEOUT_MS });
      // A restarted anvil may have lost its last blocks: core then counts nonces from the chain again.
      const runtime: ChainRuntime = { chain, tokenList, fund: (a) => devnet.fund(a), onRewind: (l) => devnet.onRestart(l) };
      return { runtime, stop: () => devnet.stop(), lost: devnet.gaveUp };
    } catch (e) {
      await devnet.stop();
      throw e;
    }
  }
  if (!config.PRESENCE_TOKEN_LIST) throw new Error(`PRESENCE_TOKEN_LIST is required with PRESENCE_CHAIN=${config.PRESENCE_CHAIN}`);
  const tokenList = await chainLayer.loadTokenList(config.PRESENCE_TOKEN_LIST);
  const chain = createViemChain({ rpcUrl: config.PRESENCE_RPC_URL as string, tokenList, timeoutMs: RPC_TIMEOUT_MS });
  return { runtime: { chain, tokenList }, stop: async () => undefined, lost: never };
}

const HEALTH_CHAIN_TIMEOUT_MS = 1_000;

/**
 * The chain's head for GET /v1/health. Health is what readiness probes poll: a stalled RPC
 * must not hold it for the chain's full timeout (about 10 s), so the head is only waited for
 * briefly and reported as null after that.
 */
export function chainHead(runtime: ChainRuntime) {
  return async () => {
    const probe = runtime.chain.health();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), HEALTH_CHAIN_TIMEOUT_MS);
    });
    try {
      const h = await Promise.race([probe, late]);
      return h && { id: h.chainId, block: Number(h.block) };
    } finally {
      clearTimeout(timer);
      probe.catch(() => undefined); // its late failure is no longer anyone's answer
    }
  };
}
