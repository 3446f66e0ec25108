// The devnet against a real anvil: deterministic deployment, seeded pools, funding, and the
// cache in the data dir (restart reuses state; a crash loses at most one dump interval; a
// corrupt state file falls back to the last good one).
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, createPublicClient, erc20Abi, http, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pairAbi } from './abis';
import { FUNDING } from './deploy';
import { type Devnet, startDevnet } from './devnet';

const dirs: string[] = [];
const running: Devnet[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'presence-devnet-'));
  dirs.push(d);
  return d;
};
const start = async (dataDir: string, stateIntervalSec?: number, maxRestarts?: number) => {
  const d = await startDevnet({ dataDir, stateIntervalSec, maxRestarts });
  running.push(d);
  return d;
};
const clientOf = (d: Devnet): PublicClient => createPublicClient({ cacheTime: 0, transport: http(d.rpcUrl, { timeout: 5000 }) });
const tokenAddress = (d: Devnet, symbol: string) => {
  const t = d.deployment.tokens.find((x) => x.symbol === symbol);
  if (!t) throw new Error(`no ${symbol}`);
  return t.address;
};
const balanceOf = (c: PublicClient, token: Address, owner: Address) =>
  c.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });

afterAll(async () => {
  await Promise.all(running.map((d) => d.stop()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('devnet', () => {
  let dataDir: string;
  let cold: Devnet;
  const wallet = privateKeyToAccount(generatePrivateKey()).address;

  beforeAll(async () => {
    dataDir = await tempDir();
    cold = await start(dataDir);
  });

  it('deploys the market deterministically', async () => {
    expect(cold.started.reused).toBe(false);
    expect(cold.chainId).toBe(31337);
    // Nonce 0 of anvil's default mnemonic: the same WETH address on every fresh chain.
    expect(cold.deployment.dex.weth).toBe('0x5FbDB2315678afecb367f032d93F642f64180aa3');
    expect(cold.deployment.tokens.map((t) => [t.symbol, t.decimals, t.stable ?? false])).toEqual([
      ['WETH', 18, false],
      ['USDC', 6, true],
      ['DAI', 18, true],
      ['SCAM', 18, false],
    ]);
    const client = clientOf(cold);
    expect(await client.getChainId()).toBe(31337);
    for (const address of [cold.deployment.dex.factory, cold.deployment.dex.router]) {
      expect((await client.getCode({ address }))?.length).toBeGreaterThan(2);
    }
  });

  it('seeds WETH-USDC at 3000 USDC per WETH and a thin WETH-SCAM pool', async () => {
    const client = clientOf(cold);
    const pairs = cold.deployment.devnet.pairs;
    const [usdc0, usdc1] = await client.readContract({ address: pairs['WETH-USDC'] as Address, abi: pairAbi, functionName: 'getReserves' });
    const wethIsToken0 = cold.deployment.dex.weth.toLowerCase() < tokenAddress(cold, 'USDC').toLowerCase();
    const [weth, usdc] = wethIsToken0 ? [usdc0, usdc1] : [usdc1, usdc0];
    expect(weth).toBe(1000n * 10n ** 18n);
    expect(usdc).toBe(3_000_000n * 10n ** 6n);
    const [s0, s1] = await client.readContract({ address: pairs['WETH-SCAM'] as Address, abi: pairAbi, functionName: 'getReserves' });
    expect([s0, s1]).toContain(5n * 10n ** 18n); // 5 WETH against 5M SCAM
  });

  it('funds a new wallet with ETH, WETH, USDC and DAI', async () => {
    await cold.fund(wallet);
    const client = clientOf(cold);
    expect(await client.getBalance({ address: wallet })).toBe(FUNDING.eth);
    expect(await balanceOf(client, tokenAddress(cold, 'WETH'), wallet)).toBe(FUNDING.weth);
    expect(await balanceOf(client, tokenAddress(cold, 'USDC'), wallet)).toBe(FUNDING.usdc);
    expect(await balanceOf(client, tokenAddress(cold, 'DAI'), wallet)).toBe(FUNDING.dai);
  });

  it('funds concurrently without nonce races', async () => {
    const wallets = Array.from({ length: 5 }, () => privateKeyToAccount(generatePrivateKey()).address);
    await Promise.all(wallets.map((w) => cold.fund(w)));
    const client = clientOf(cold);
    for (const w of wallets) expect(await balanceOf(client, tokenAddress(cold, 'USDC'), w)).toBe(FUNDING.usdc);
  });

  it('restarts from the data dir: state reused, same addresses, state kept', async () => {
    const block = await clientOf(cold).getBlockNumber();
    await cold.stop();
    const warm = await start(dataDir);
    // How much faster a warm restart is goes to the bench (section `devnet`); here, that it reused the state.
    expect(warm.started.reused).toBe(true);
    expect(warm.deployment).toEqual(cold.deployment);
    const client = clientOf(warm);
    expect(await client.getBlockNumber()).toBe(block);
    expect(await balanceOf(client, tokenAddress(warm, 'USDC'), wallet)).toBe(FUNDING.usdc);
    await warm.stop();
  });

  it('falls back to the last good state when state.json is corrupt', async () => {
    const statePath = join(dataDir, 'devnet', 'state.json');
    await writeFile(statePath, '{"block": trunc');
    const lines: string[] = [];
    const d = await startDevnet({ dataDir, log: (l) => lines.push(l) });
    running.push(d);
    expect(lines.some((l) => l.includes('could not load its state'))).toBe(true);
    expect(d.started.reused).toBe(true);
    expect(await balanceOf(clientOf(d), tokenAddress(d, 'USDC'), wallet)).toBe(FUNDING.usdc);
    await d.stop();
  });
});

describe('devnet crash', () => {
  it('keeps what the periodic dump saved when anvil is SIGKILLed', async () => {
    const dataDir = await tempDir();
    // Not restarted under it (that is `devnet supervision`): a crash of the devnet as a whole.
    const first = await start(dataDir, 1, 0);
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    await first.fund(wallet);
    const statePath = join(dataDir, 'devnet', 'state.json');
    const fundedAt = Date.now();
    // Wait for a dump made after the funding and written whole (anvil writes in place: a
    // partial file does not parse) that holds the funded wallet, then crash without any
    // shutdown, at once: the next dump is a second away.
    const dumped = async () => {
      const s = await stat(statePath).catch(() => null);
      if (!s || s.mtimeMs <= fundedAt + 50) return false;
      try {
        const state = JSON.parse(await readFile(statePath, 'utf8')) as { accounts?: Record<string, unknown> };
        return Object.keys(state.accounts ?? {}).some((a) => a.toLowerCase() === wallet.toLowerCase());
      } catch {
        return false; // caught mid-write
      }
    };
    await vi.waitFor(async () => expect(await dumped()).toBe(true), { timeout: 10_000, interval: 50 });
    process.kill(first.pid, 'SIGKILL');
    expect(await first.exited).toBe(137); // the wrapper passes on anvil's fate
    await first.stop();

    const second = await start(dataDir);
    expect(second.started.reused).toBe(true);
    expect(await balanceOf(clientOf(second), tokenAddress(second, 'DAI'), wallet)).toBe(FUNDING.dai);
    expect(JSON.parse(await readFile(join(dataDir, 'devnet', 'deployment.json'), 'utf8')).dex).toEqual(second.deployment.dex);
  }, 20_000);

  it('redeploys when the cached deployment has no code on the chain', async () => {
    const dataDir = await tempDir();
    const first = await start(dataDir);
    await first.stop();
    await rm(join(dataDir, 'devnet', 'state.json'));
    await rm(join(dataDir, 'devnet', 'state.last-good.json'), { force: true });
    const second = await start(dataDir);
    expect(second.started.reused).toBe(false);
    // A fresh chain replays the same nonces, so the addresses come out identical.
    expect(second.deployment.dex).toEqual(first.deployment.dex);
  });
});

describe('devnet supervision', () => {
  const pending = Symbol('pending');
  const stillPending = async (p: Promise<unknown>) => (await Promise.race([p, Promise.resolve(pending)])) === pending;
  /** A devnet dumping its state every second, once a whole dump is on disk (before it, a restart has nothing to load). */
  const startLogged = async (opts: { maxRestarts?: number } = {}) => {
    const lines: string[] = [];
    const dataDir = await tempDir();
    const d = await startDevnet({ dataDir, stateIntervalSec: 1, log: (l) => lines.push(l), ...opts });
    running.push(d);
    const statePath = join(dataDir, 'devnet', 'state.json');
    const dumped = () =>
      readFile(statePath, 'utf8').then(
        (t) => Boolean(JSON.parse(t)),
        () => false,
      );
    await vi.waitFor(async () => expect(await dumped()).toBe(true), { timeout: 10_000, interval: 50 });
    return { d, lines };
  };
  /** SIGKILLs the current anvil and waits for the supervisor to have answered it (restart or give up). */
  const killAnvil = async (d: Devnet, lines: string[], answer: RegExp) => {
    const before = lines.filter((l) => answer.test(l)).length;
    process.kill(d.pid, 'SIGKILL');
    await vi.waitFor(() => expect(lines.filter((l) => answer.test(l)).length, lines.join('\n')).toBe(before + 1), {
      timeout: 15_000,
      interval: 50,
    });
  };

  it('restarts an anvil killed under it on the same port, from its saved state', async () => {
    const { d, lines } = await startLogged();
    let restarts = 0;
    d.onRestart(() => restarts++);
    const firstPid = d.pid;
    await killAnvil(d, lines, /restarted from its saved state/);
    expect(lines.find((l) => l.includes('restarted'))).toMatch(
      /^devnet: anvil exited on its own \(signal SIGKILL\); restarted from its saved state in \d+ ms — up to 1 s of chain history may be lost$/,
    );
    expect(d.pid).not.toBe(firstPid);
    expect(restarts).toBe(1);
    // The same URL answers, on a chain that has the deployment's code.
    const client = clientOf(d);
    expect(await client.getChainId()).toBe(31337);
    for (const address of [d.deployment.dex.router, tokenAddress(d, 'USDC')]) {
      expect((await client.getCode({ address }))?.length).toBeGreaterThan(2);
    }
    expect(await stillPending(d.exited)).toBe(true);
    expect(await stillPending(d.gaveUp)).toBe(true);
    // And it goes on working: funding sends transactions through the restarted anvil.
    const another = privateKeyToAccount(generatePrivateKey()).address;
    await d.fund(another);
    expect(await balanceOf(client, tokenAddress(d, 'DAI'), another)).toBe(FUNDING.dai);
    // stop() stops the anvil running now.
    const restartedPid = d.pid;
    await d.stop();
    expect(await d.exited).toBe(0);
    expect(() => process.kill(restartedPid, 0)).toThrow();
  }, 60_000);

  it('gives up after its restarts: gaveUp says why and exited resolves', async () => {
    const { d, lines } = await startLogged({ maxRestarts: 1 });
    await killAnvil(d, lines, /restarted from its saved state/);
    await killAnvil(d, lines, /gave up/);
    const why = await d.gaveUp;
    expect(why).toMatch(/^anvil exited on its own \(signal SIGKILL\), after 1 restarts within 300 s: not restarting it again$/);
    expect(await d.exited).toBe(137);
    expect(await fetch(d.rpcUrl).catch(() => 'refused')).toBe('refused');
    await d.stop(); // idempotent after giving up
  }, 60_000);

  it('gives up when the restart cannot have the port it had', async () => {
    const { d, lines } = await startLogged();
    const port = Number(new URL(d.rpcUrl).port);
    process.kill(d.pid, 'SIGKILL');
    // Whoever takes the port first keeps it: hold it from the moment it is free.
    const { createServer } = await import('node:net');
    const holder = createServer();
    await vi.waitFor(
      () =>
        new Promise<void>((resolve, reject) => {
          holder.once('error', reject);
          holder.listen(port, '127.0.0.1', () => resolve());
        }),
      { timeout: 10_000, interval: 5 },
    );
    try {
      expect(await d.gaveUp).toMatch(
        /^anvil exited on its own \(signal SIGKILL\) and could not be restarted: its port \d+ is in use by another process$/,
      );
      expect(lines.some((l) => l.startsWith('devnet: gave up: '))).toBe(true);
      expect(await d.exited).toBe(137);
    } finally {
      holder.close();
    }
  }, 60_000);
});
