// The embedded devnet: a real anvil chain with a seeded Uniswap V2 market, started on a free
// loopback port and persisted under <dataDir>/devnet/ (anvil's state.json + deployment.json).
// A restart loads the state and reuses the deployment when its code is still there, so it
// takes well under a second; anything missing or broken is redeployed instead. While it runs,
// an anvil that exits on its own is restarted on the same port from its saved state
// (supervise.ts); what cannot be brought back that way ends the devnet (`gaveUp`).
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type Address, createPublicClient, http, type PublicClient } from 'viem';
import { type AnvilProcess, AnvilStartError, anvilBinary, freeLoopbackPort, spawnAnvil } from './anvil-process';
import { loadArtifacts } from './artifacts';
import { DEVNET_CHAIN_ID, DEVNET_MNEMONIC, type DeployerRpc, deployerRpc, deployMarket, fundWallet } from './deploy';
import { type Deployment, readDeployment, writeDeployment } from './deployment';
import { superviseAnvil } from './supervise';

export interface DevnetOptions {
  dataDir: string;
  log?: (line: string) => void;
  /** Seconds between anvil's periodic state dumps (a crash loses at most this much). */
  stateIntervalSec?: number;
  /** Per RPC request made while deploying and funding. */
  timeoutMs?: number;
  /** How many times anvil is restarted after exiting on its own within `restartWindowMs` (default 3 in 5 minutes) before the devnet gives up. */
  maxRestarts?: number;
  restartWindowMs?: number;
}

export interface Devnet {
  rpcUrl: string;
  chainId: number;
  /** Also a TokenList: hand it to createViemChain like any network's list. */
  deployment: Deployment;
  /** The running anvil's pid, for supervision and tests (a restart changes it). */
  readonly pid: number;
  /**
   * Resolves with the last anvil's exit code once the devnet is over: after stop(), or when it
   * gave up restarting anvil (see `gaveUp`). An anvil that exits on its own and is restarted
   * (same port, saved state) does not resolve it.
   */
  exited: Promise<number | null>;
  /**
   * Resolves with why, if anvil exited on its own and could not be brought back as it was (too
   * many times, port taken, state lost); stays pending otherwise. The chain is then gone.
   */
  gaveUp: Promise<string>;
  /**
   * Calls `listener` after each restart of anvil: the chain may have lost up to
   * `stateIntervalSec` of blocks, so nonces counted before are ahead of it.
   */
  onRestart(listener: () => void): void;
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

const portTaken = (err: unknown) => err instanceof AnvilStartError && /address.*in use/i.test(err.stderr);
/** Killed while loading (by a signal, 128 + n) says nothing about the state either. */
const killed = (err: AnvilStartError) => err.code !== null && err.code > 128;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** On a free port, or on `port` (a restart: the port clients know) when given. */
async function launch(binary: string, args: string[], log: ((l: string) => void) | undefined, port?: number): Promise<AnvilProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnAnvil({ binary, port: port ?? (await freeLoopbackPort()), args, log });
    } catch (err) {
      if (!portTaken(err)) throw err;
      if (attempt >= 4) throw port === undefined ? err : new Error(`its port ${port} is in use by another process`);
      // A free port can be taken between probing and binding: pick another. A fixed one may
      // still be held for a moment by what just died: wait a little for it.
      if (port !== undefined) await sleep(250 * attempt);
    }
  }
}

export async function hasCode(client: PublicClient, addresses: Address[]): Promise<boolean> {
  const codes = await Promise.all(addresses.map((address) => client.getCode({ address })));
  return codes.every((c) => c !== undefined && c !== '0x');
}

type Paths = { statePath: string; lastGoodPath: string };
/** Which state anvil started on: its last dump, the copy of the last one that loaded, or none. */
type StartedOn = 'saved' | 'last-good' | 'fresh';

/**
 * Starts anvil on its saved state. anvil writes its dump in place, so a crash mid-write can
 * leave a truncated file that it then refuses to load: fall back to the copy of the last state
 * that did load, then (unless `fresh` is false) to a fresh chain, keeping the broken file for
 * inspection. A port in use, or an anvil killed while starting, says nothing about the state:
 * that is thrown as it is.
 */
async function launchOrFallBack(
  binary: string,
  args: string[],
  { statePath, lastGoodPath }: Paths,
  log: ((l: string) => void) | undefined,
  { port, fresh = true }: { port?: number; fresh?: boolean } = {},
): Promise<{ proc: AnvilProcess; on: StartedOn }> {
  let setAside = false;
  for (const fallback of ['saved', 'last-good', 'fresh'] as const) {
    // Without a state file anvil starts a fresh chain, which only `fresh` allows.
    if (fallback === 'saved' && !fresh && !existsSync(statePath)) continue;
    if (fallback === 'last-good' && !existsSync(lastGoodPath)) continue;
    if (fallback === 'fresh' && !fresh) throw new Error(setAside ? 'its saved state could not be loaded' : 'it had saved no state yet');
    if (fallback === 'last-good') await copyFile(lastGoodPath, statePath);
    const on = fallback === 'saved' && !existsSync(statePath) ? 'fresh' : fallback;
    try {
      return { proc: await launch(binary, args, log, port), on };
    } catch (err) {
      if (!(err instanceof AnvilStartError) || portTaken(err) || killed(err) || !existsSync(statePath) || fallback === 'fresh') throw err;
      const aside = `${statePath}.broken-${Date.now()}`;
      log?.(`devnet: anvil could not load its state (${err.message}); moved it to ${aside}`);
      await rename(statePath, aside);
      setAside = true;
    }
  }
  throw new Error('devnet: anvil did not start');
}

/** Addresses the deployment's code must be at for the chain to be the one it was made on. */
const deployedAddresses = (d: Deployment): Address[] => [
  d.dex.factory,
  d.dex.router,
  ...d.tokens.map((t) => t.address),
  ...(Object.values(d.devnet.pairs) as Address[]),
];

/** The saved deployment when its contracts are on this chain (reused), else a new one, saved. */
async function deploymentOn(
  client: PublicClient,
  rpc: DeployerRpc,
  deploymentPath: string,
  log: ((l: string) => void) | undefined,
): Promise<{ deployment: Deployment; reused: boolean }> {
  const saved = await readDeployment(deploymentPath);
  if (saved) {
    if (await hasCode(client, deployedAddresses(saved))) return { deployment: saved, reused: true };
    log?.('devnet: cached deployment has no code on this chain; redeploying');
  }
  log?.('devnet: deploying Uniswap V2, WETH, USDC, DAI, SCAM and seeding pools');
  const deployment = await deployMarket(rpc, loadArtifacts());
  await writeDeployment(deploymentPath, deployment);
  return { deployment, reused: false };
}

/**
 * Restarts of an anvil that exited on its own: same port, saved state only (never a fresh
 * chain), and the deployment's code checked, since a redeploy would not be the token list
 * the devnet's owner already holds.
 */
function supervise(
  first: AnvilProcess,
  deployment: Deployment,
  { binary, args, paths, opts, restarted }: { binary: string; args: string[]; paths: Paths; opts: DevnetOptions; restarted: () => void },
) {
  const port = Number(new URL(first.rpcUrl).port);
  const timeout = opts.timeoutMs ?? 10_000;
  return superviseAnvil(first, {
    async restart() {
      const { proc, on } = await launchOrFallBack(binary, args, paths, opts.log, { port, fresh: false });
      // The copy of the last good state only ever moves forward: to a dump that loaded.
      if (on === 'saved') await copyFile(paths.statePath, paths.lastGoodPath).catch(() => undefined);
      return proc;
    },
    async check(proc) {
      const client = createPublicClient({ cacheTime: 0, transport: http(proc.rpcUrl, { timeout, retryCount: 0 }) });
      return (await hasCode(client, deployedAddresses(deployment))) ? null : "the deployment's contracts are not on its chain";
    },
    lossNote: `up to ${opts.stateIntervalSec ?? 5} s of chain history may be lost`,
    maxRestarts: opts.maxRestarts ?? 3,
    windowMs: opts.restartWindowMs ?? 5 * 60_000,
    log: opts.log,
    restarted,
  });
}

export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  const t0 = Date.now();
  const log = opts.log;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const dir = join(opts.dataDir, 'devnet');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const paths: Paths = { statePath: join(dir, 'state.json'), lastGoodPath: join(dir, 'state.last-good.json') };
  const deploymentPath = join(dir, 'deployment.json');
  const args = anvilArgs(paths.statePath, opts.stateIntervalSec ?? 5);
  const binary = anvilBinary();

  const hadState = existsSync(paths.statePath);
  const { proc } = await launchOrFallBack(binary, args, paths, log);

  try {
    const client = createPublicClient({ cacheTime: 0, transport: http(proc.rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
    const rpc = deployerRpc(client, timeoutMs);

    const { deployment: ready, reused } = await deploymentOn(client, rpc, deploymentPath, log);
    if (reused && hadState) await copyFile(paths.statePath, paths.lastGoodPath);

    let queue: Promise<unknown> = Promise.resolve();
    let stopped = false;
    const started = { reused, ms: Date.now() - t0 };
    log?.(`devnet: chain ${DEVNET_CHAIN_ID} on ${proc.rpcUrl} (${reused ? 'reused state' : 'fresh'}, ${started.ms} ms)`);
    const listeners = new Set<() => void>();
    const restarted = () => {
      for (const l of listeners) l();
    };
    const anvil = supervise(proc, ready, { binary, args, paths, opts, restarted });

    return {
      rpcUrl: proc.rpcUrl,
      chainId: DEVNET_CHAIN_ID,
      deployment: ready,
      get pid() {
        return anvil.current.pid;
      },
      exited: anvil.exited,
      gaveUp: anvil.gaveUp,
      onRestart(listener) {
        listeners.add(listener);
      },
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
        await anvil.stop();
      },
    };
  } catch (err) {
    await proc.stop();
    throw err;
  }
}
