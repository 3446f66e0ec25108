// The embedded devnet: a real anvil chain with a seeded Uniswap V2 market, started on a free
// loopback port and persisted under <dataDir>/devnet/ (anvil's state.json + deployment.json).
// A restart loads the state and reuses the deployment when its code is still there, so it
// takes well under a second; anything missing or broken is redeployed instead.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type Address, createPublicClient, http, type PublicClient } from 'viem';
import { type AnvilProcess, AnvilStartError, anvilBinary, freeLoopbackPort, spawnAnvil } from './anvil-process';
import { loadArtifacts } from './artifacts';
import { DEVNET_CHAIN_ID, DEVNET_MNEMONIC, type DeployerRpc, deployerRpc, deployMarket, fundWallet } from './deploy';
import { type Deployment, readDeployment, writeDeployment } from './deployment';

export interface DevnetOptions {
  dataDir: string;
  log?: (line: string) => void;
  /** Seconds between anvil's periodic state dumps (a crash loses at most this much). */
  stateIntervalSec?: number;
  /** Per RPC request made while deploying and funding. */
  timeoutMs?: number;
}

export interface Devnet {
  rpcUrl: string;
  chainId: number;
  /** Also a TokenList: hand it to createViemChain like any network's list. */
  deployment: Deployment;
  /** anvil's pid, for supervision and tests. */
  pid: number;
  /** Resolves with anvil's exit code if it ever exits (after stop(), or on its own). */
  exited: Promise<number | null>;
  /** Whether this start reused the cached chain, and how long it took. */
  started: { reused: boolean; ms: number };
  /** 10 ETH, 5 WETH, 10,000 USDC, 10,000 DAI from the deployer. */
  fund(address: Address): Promise<void>;
  /** Graceful: anvil dumps its state, then exits. Idempotent. */
  stop(): Promise<void>;
}

/** What every devnet anvil runs with, embedded or shared (`presence-server devnet`). */
export const DEVNET_ANVIL_ARGS = [
  '--chain-id',
  String(DEVNET_CHAIN_ID),
  '--mnemonic',
  DEVNET_MNEMONIC,
  '--balance',
  '1000000',
  '--hardfork',
  'prague',
] as const;

const anvilArgs = (statePath: string, intervalSec: number) => [
  '--silent',
  ...DEVNET_ANVIL_ARGS,
  '--state',
  statePath,
  '--state-interval',
  String(intervalSec),
];

async function launch(binary: string, args: string[], log?: (l: string) => void): Promise<AnvilProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnAnvil({ binary, port: await freeLoopbackPort(), args, log });
    } catch (err) {
      // The free port can be taken between probing and binding; just pick another.
      if (err instanceof AnvilStartError && /address.*in use/i.test(err.stderr) && attempt < 4) continue;
      throw err;
    }
  }
}

export async function hasCode(client: PublicClient, addresses: Address[]): Promise<boolean> {
  const codes = await Promise.all(addresses.map((address) => client.getCode({ address })));
  return codes.every((c) => c !== undefined && c !== '0x');
}

/**
 * Starts anvil on its saved state. anvil writes its dump in place, so a crash mid-write can
 * leave a truncated file that it then refuses to load: fall back to the copy of the last state
 * that did load, then to a fresh chain, keeping the broken file for inspection.
 */
async function launchOrFallBack(
  binary: string,
  args: string[],
  statePath: string,
  lastGoodPath: string,
  log: ((l: string) => void) | undefined,
): Promise<AnvilProcess> {
  for (const fallback of [null, lastGoodPath, 'fresh'] as const) {
    if (fallback === lastGoodPath && !existsSync(lastGoodPath)) continue;
    if (fallback === lastGoodPath) await copyFile(lastGoodPath, statePath);
    try {
      return await launch(binary, args, log);
    } catch (err) {
      if (!(err instanceof AnvilStartError) || !existsSync(statePath) || fallback === 'fresh') throw err;
      const aside = `${statePath}.broken-${Date.now()}`;
      log?.(`devnet: anvil could not load its state (${err.message}); moved it to ${aside}`);
      await rename(statePath, aside);
    }
  }
  throw new Error('devnet: anvil did not start');
}

/** The saved deployment when its contracts are on this chain (reused), else a new one, saved. */
async function deploymentOn(
  client: PublicClient,
  rpc: DeployerRpc,
  deploymentPath: string,
  log: ((l: string) => void) | undefined,
): Promise<{ deployment: Deployment; reused: boolean }> {
  const saved = await readDeployment(deploymentPath);
  if (saved) {
    const addresses = [saved.dex.factory, saved.dex.router, ...saved.tokens.map((t) => t.address), ...Object.values(saved.devnet.pairs)];
    if (await hasCode(client, addresses)) return { deployment: saved, reused: true };
    log?.('devnet: cached deployment has no code on this chain; redeploying');
  }
  log?.('devnet: deploying Uniswap V2, WETH, USDC, DAI, SCAM and seeding pools');
  const deployment = await deployMarket(rpc, loadArtifacts());
  await writeDeployment(deploymentPath, deployment);
  return { deployment, reused: false };
}

export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  const t0 = Date.now();
  const log = opts.log;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const dir = join(opts.dataDir, 'devnet');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const statePath = join(dir, 'state.json');
  const lastGoodPath = join(dir, 'state.last-good.json');
  const deploymentPath = join(dir, 'deployment.json');
  const args = anvilArgs(statePath, opts.stateIntervalSec ?? 5);

  const hadState = existsSync(statePath);
  const proc = await launchOrFallBack(anvilBinary(), args, statePath, lastGoodPath, log);

  try {
    const client = createPublicClient({ cacheTime: 0, transport: http(proc.rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
    const rpc = deployerRpc(client, timeoutMs);

    const { deployment: ready, reused } = await deploymentOn(client, rpc, deploymentPath, log);
    if (reused && hadState) await copyFile(statePath, lastGoodPath);

    let queue: Promise<unknown> = Promise.resolve();
    let stopped = false;
    const started = { reused, ms: Date.now() - t0 };
    log?.(`devnet: chain ${DEVNET_CHAIN_ID} on ${proc.rpcUrl} (${reused ? 'reused state' : 'fresh'}, ${started.ms} ms)`);

    return {
      rpcUrl: proc.rpcUrl,
      chainId: DEVNET_CHAIN_ID,
      deployment: ready,
      pid: proc.pid,
      exited: proc.exited,
      started,
      fund(address) {
        if (stopped) return Promise.reject(new Error('devnet is stopped'));
        const run = queue.then(() => fundWallet(rpc, ready, address));
        queue = run.catch(() => {});
        return run;
      },
      async stop() {
        stopped = true;
        await queue;
        await proc.stop();
      },
    };
  } catch (err) {
    await proc.stop();
    throw err;
  }
}
