// The viem chain port against a real devnet: reads, quotes, locally signed swaps/wraps/
// transfers that move balances by exactly the quoted amounts, idempotent resend, typed
// errors; and against dead or silent RPCs, which must fail fast with ChainUnavailableError.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Deployment, type Devnet, DEVNET_FUNDING as FUNDING, startDevnet } from '@presence/devnet';
import { type Address, type Hex, maxUint256, parseEther, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainPort } from '../chain-port';
import { ChainRevertedError, ChainUnavailableError, ReceiptTimeoutError, TransactionRejectedError } from '../errors';
import { loadTokenList, type TokenList } from '../token-list';
import { createViemChain } from './viem-chain';

let dataDir: string;
let devnet: Devnet;
let chain: ChainPort;
let list: Deployment;
const addr = (symbol: string) => {
  const t = list.tokens.find((x) => x.symbol === symbol);
  if (!t) throw new Error(symbol);
  return t.address;
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'presence-port-'));
  devnet = await startDevnet({ dataDir });
  list = devnet.deployment;
  chain = createViemChain({ rpcUrl: devnet.rpcUrl, tokenList: list, timeoutMs: 3000 });
});

afterAll(async () => {
  await devnet?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function newWallet() {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await devnet.fund(address);
  return { key, address };
}

async function anvilRpc(method: string, params: unknown[]) {
  const res = await fetch(devnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  expect(res.ok).toBe(true);
}

/** sign → send → receipt, the way the intent pipeline will do it. */
async function execute(key: Hex, from: Address, tx: Parameters<ChainPort['signTransaction']>[1]) {
  const nonce = await chain.nonceOf(from, 'pending');
  const signed = await chain.signTransaction(key, tx, nonce);
  expect(signed.from).toBe(from);
  const hash = await chain.sendRaw(signed.raw);
  expect(hash).toBe(signed.hash);
  const receipt = await chain.waitForReceipt(hash, 10_000);
  expect(receipt.status).toBe('success');
  return { signed, receipt };
}

describe('viem chain port on the devnet', () => {
  it('reports health, chain id and blocks', async () => {
    const health = await chain.health();
    expect(health.chainId).toBe(31337);
    expect(chain.chainId).toBe(31337);
    expect(await chain.blockNumber()).toBeGreaterThanOrEqual(health.block);
  });

  it('reads balances of ETH and every listed token', async () => {
    const { address } = await newWallet();
    const b = await chain.balances(address);
    expect(b.eth).toBe(FUNDING.eth);
    expect(Object.fromEntries(b.tokens.map((t) => [t.token.symbol, t.amount]))).toEqual({
      WETH: FUNDING.weth,
      USDC: FUNDING.usdc,
      DAI: FUNDING.dai,
      SCAM: 0n,
    });
  });

  it('returns pair reserves in the order asked, or null', async () => {
    const ab = await chain.pair(addr('WETH'), addr('USDC'));
    const ba = await chain.pair(addr('USDC'), addr('WETH'));
    expect(ab?.address).toBe(list.devnet.pairs['WETH-USDC']);
    expect(ab?.reserveA).toBe(ba?.reserveB);
    expect(ab?.reserveB).toBe(ba?.reserveA);
    expect(await chain.pair(addr('USDC'), addr('DAI'))).toBeNull();
    await expect(chain.pair(addr('USDC'), addr('USDC'))).rejects.toMatchObject({ type: 'invalid_request' });
  });

  it('swaps ETH for USDC and receives exactly the quoted amount', async () => {
    const { key, address } = await newWallet();
    const amountIn = parseEther('0.5');
    const quote = await chain.quoteExactIn([addr('WETH'), addr('USDC')], amountIn);
    expect(quote.amountOut).toBeGreaterThan(parseUnits('1400', 6)); // ~1500 minus fee and impact
    const before = await chain.balances(address);
    const tx = chain.buildSwap({
      path: quote.path,
      amountIn,
      minAmountOut: quote.amountOut,
      recipient: address,
      nativeIn: true,
    });
    expect(tx.value).toBe(amountIn);
    const { receipt } = await execute(key, address, tx);
    const after = await chain.balances(address, { block: receipt.block });
    const usdc = (b: typeof after) => b.tokens.find((t) => t.token.symbol === 'USDC')?.amount ?? 0n;
    expect(usdc(after) - usdc(before)).toBe(quote.amountOut);
    expect(before.eth - after.eth).toBeGreaterThan(amountIn); // plus gas
  });

  it('swaps a token for a token after an approval', async () => {
    const { key, address } = await newWallet();
    const amountIn = parseUnits('300', 6);
    expect(await chain.allowance(addr('USDC'), address, list.dex.router)).toBe(0n);
    await execute(key, address, chain.buildApprove(addr('USDC'), list.dex.router, maxUint256));
    expect(await chain.allowance(addr('USDC'), address, list.dex.router)).toBe(maxUint256);
    const quote = await chain.quoteExactIn([addr('USDC'), addr('WETH'), addr('DAI')], amountIn);
    expect(quote.amounts).toHaveLength(3);
    const daiBefore = await chain.tokenBalance(addr('DAI'), address);
    await execute(key, address, chain.buildSwap({ path: quote.path, amountIn, minAmountOut: quote.amountOut, recipient: address }));
    expect((await chain.tokenBalance(addr('DAI'), address)) - daiBefore).toBe(quote.amountOut);
    expect(await chain.tokenBalance(addr('USDC'), address)).toBe(FUNDING.usdc - amountIn);
  });

  it('gives a swap enough gas when it is mined in a later second than it was estimated in', async () => {
    // A pair writes its price oracle only when block.timestamp moved since its last update,
    // which anvil's estimate (at the latest block's timestamp) does not see.
    const { key, address } = await newWallet();
    await execute(key, address, chain.buildApprove(addr('USDC'), list.dex.router, maxUint256));
    for (const _ of [1, 2]) {
      const quote = await chain.quoteExactIn([addr('USDC'), addr('WETH'), addr('DAI')], parseUnits('100', 6));
      const tx = chain.buildSwap({ path: quote.path, amountIn: quote.amountIn, minAmountOut: 0n, recipient: address });
      const signed = await chain.signTransaction(key, tx, await chain.nonceOf(address, 'pending'));
      await anvilRpc('evm_increaseTime', [60]);
      const receipt = await chain.waitForReceipt(await chain.sendRaw(signed.raw), 10_000);
      expect(receipt.status).toBe('success');
    }
  });

  it('wraps, unwraps and transfers', async () => {
    const { key, address } = await newWallet();
    const other = privateKeyToAccount(generatePrivateKey()).address;
    await execute(key, address, chain.buildWrap(parseEther('1')));
    expect(await chain.tokenBalance(addr('WETH'), address)).toBe(FUNDING.weth + parseEther('1'));
    await execute(key, address, chain.buildUnwrap(parseEther('2')));
    expect(await chain.tokenBalance(addr('WETH'), address)).toBe(FUNDING.weth - parseEther('1'));
    await execute(key, address, chain.buildTransfer(addr('USDC'), other, parseUnits('5', 6)));
    await execute(key, address, chain.buildTransfer('ETH', other, parseEther('0.25')));
    const b = await chain.balances(other);
    expect(b.eth).toBe(parseEther('0.25'));
    expect(b.tokens.find((t) => t.token.symbol === 'USDC')?.amount).toBe(parseUnits('5', 6));
  });

  it('treats a resend of the same signed bytes as the same transaction', async () => {
    const { key, address } = await newWallet();
    const nonce = await chain.nonceOf(address, 'pending');
    const signed = await chain.signTransaction(key, chain.buildWrap(1n), nonce);
    // Signing sends nothing: the nonce is not consumed.
    expect(await chain.nonceOf(address, 'pending')).toBe(nonce);
    const first = await chain.sendRaw(signed.raw);
    const again = await chain.sendRaw(signed.raw);
    expect(again).toBe(first);
    const receipt = await chain.waitForReceipt(first);
    const tx = await chain.getTransaction(first);
    expect(tx).toMatchObject({ hash: first, from: address, nonce, block: receipt.block });
    expect(await chain.nonceOf(address, 'latest')).toBe(nonce + 1);
    expect(await chain.getTransaction(`0x${'ab'.repeat(32)}`)).toBeNull();
  });

  it('rejects a different transaction reusing a mined nonce', async () => {
    const { key, address } = await newWallet();
    await execute(key, address, chain.buildWrap(1n));
    const stale = await chain.signTransaction(key, chain.buildWrap(2n), 0);
    await expect(chain.sendRaw(stale.raw)).rejects.toBeInstanceOf(TransactionRejectedError);
  });

  it('surfaces a revert while estimating gas as ChainRevertedError with the reason', async () => {
    const { key, address } = await newWallet();
    const quote = await chain.quoteExactIn([addr('WETH'), addr('USDC')], parseEther('0.1'));
    const tx = chain.buildSwap({
      path: quote.path,
      amountIn: quote.amountIn,
      minAmountOut: quote.amountOut + 1n,
      recipient: address,
      nativeIn: true,
    });
    const err = await chain.signTransaction(key, tx, 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainRevertedError);
    expect((err as ChainRevertedError).reason).toMatch(/INSUFFICIENT_OUTPUT_AMOUNT/);
  });

  it('gives up waiting for an unknown receipt with ReceiptTimeoutError', async () => {
    // The 300 ms is really waited out: that wait is the behaviour under test. No bound on how
    // long it took; the error names the wait it gave up after.
    const err = await chain.waitForReceipt(`0x${'cd'.repeat(32)}`, 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReceiptTimeoutError);
    expect((err as Error).message).toMatch(/\b300 ?ms\b/);
  });

  it('validates swap shapes before building', () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    expect(() =>
      chain.buildSwap({ path: [addr('USDC'), addr('WETH')], amountIn: 1n, minAmountOut: 0n, recipient, nativeIn: true }),
    ).toThrow(expect.objectContaining({ type: 'invalid_request' }));
    expect(() => chain.buildSwap({ path: [addr('USDC')], amountIn: 1n, minAmountOut: 0n, recipient })).toThrow(
      expect.objectContaining({ type: 'invalid_request' }),
    );
  });
});

describe('unavailable chain', () => {
  let base: TokenList;
  let silent: Server;
  let silentUrl: string;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    base = await loadTokenList(new URL('../lists/base-mainnet.json', import.meta.url).pathname);
    // Accepts connections and never answers: the hang a timeout has to cut.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const a = silent.address();
    silentUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('fails fast with ChainUnavailableError when nothing listens', async () => {
    // A timeout of an hour: the refusal itself must end the call (waiting it out would hang the test).
    const dead = createViemChain({ rpcUrl: 'http://127.0.0.1:1', tokenList: base, timeoutMs: 3_600_000 });
    const err = await dead.blockNumber().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainUnavailableError);
    expect((err as ChainUnavailableError).type).toBe('chain_unavailable');
    expect((err as Error).message).toMatch(/unreachable/);
    expect((err as Error).message).not.toContain('127.0.0.1');
    await expect(dead.balances(base.dex.weth)).rejects.toBeInstanceOf(ChainUnavailableError);
    await expect(dead.quoteExactIn([base.dex.weth, base.tokens[1]?.address as Address], 1n)).rejects.toBeInstanceOf(ChainUnavailableError);
  });

  it('maps an RPC that answers HTTP errors to ChainUnavailableError naming the status', async () => {
    const answers: [number, string, string][] = [
      [503, 'text/plain', 'upstream down'],
      [429, 'application/json', JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'rate limited' } })],
    ];
    let next = 0;
    const server = createHttpServer((_req, res) => {
      const [status, type, body] = answers[next % answers.length] as [number, string, string];
      res.writeHead(status, { 'content-type': type }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const a = server.address();
    const failing = createViemChain({
      rpcUrl: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`,
      tokenList: base,
      timeoutMs: 1000,
      retryCount: 0,
    });
    try {
      const http503 = await failing.blockNumber().catch((e: unknown) => e);
      expect(http503).toBeInstanceOf(ChainUnavailableError);
      expect((http503 as Error).message).toMatch(/HTTP 503/);
      next = 1;
      const http429 = await failing.blockNumber().catch((e: unknown) => e);
      expect(http429).toBeInstanceOf(ChainUnavailableError);
      expect((http429 as Error).message).toMatch(/HTTP 429|rate limiting/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('times out with ChainUnavailableError when the RPC never answers', async () => {
    // The short timeout is waited out for real (the behaviour under test); the message says it was a timeout.
    const hung = createViemChain({ rpcUrl: silentUrl, tokenList: base, timeoutMs: 300, retryCount: 1 });
    const err = await hung.pair(base.dex.weth, base.tokens[1]?.address as Address).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainUnavailableError);
    expect((err as Error).message).toMatch(/did not answer in time|no answer/);
  });
});
