// The viem adapter of the chain port: one JSON-RPC URL, every call bounded by the client's
// guard (client.ts), transactions signed locally (signer.ts). This file only assembles the
// port from the files that own each concern.
import type { ChainPort } from '../chain-port';
import type { TokenList } from '../token-list';
import { sendRaw } from './broadcast';
import { createRpcClient } from './client';
import { prepareTransaction } from './prepare';
import { createReads } from './reads';
import { getTransaction, waitForReceipt } from './receipts';
import { accountOf, signPrepared } from './signer';
import { createTxBuilders } from './tx-builders';

export interface ViemChainOptions {
  rpcUrl: string;
  tokenList: TokenList;
  /** Per JSON-RPC request. */
  timeoutMs: number;
  retryCount?: number;
  /** Receipt polling period. */
  pollMs?: number;
  /** Unix milliseconds; injectable for deadlines. */
  now?: () => number;
}

export function createViemChain(opts: ViemChainOptions): ChainPort {
  const { tokenList } = opts;
  const chainId = tokenList.chain.id;
  const polling = { pollMs: opts.pollMs ?? 100, now: opts.now ?? Date.now };
  const rpc = createRpcClient({
    rpcUrl: opts.rpcUrl,
    chain: tokenList.chain,
    timeoutMs: opts.timeoutMs,
    retryCount: opts.retryCount,
  });

  const port: ChainPort = {
    chainId,
    tokenList,
    ...createReads(rpc, tokenList),
    ...createTxBuilders(tokenList.dex, polling.now),
    prepareTransaction: (from, tx) => prepareTransaction(rpc, from, tx),
    signPrepared: (privateKey, tx, nonce) => signPrepared(chainId, privateKey, tx, nonce),
    signTransaction: async (privateKey, tx, nonce) =>
      signPrepared(chainId, privateKey, await port.prepareTransaction(accountOf(privateKey).address, tx), nonce),
    sendRaw: (raw) => sendRaw(rpc, raw),
    waitForReceipt: (hash, timeout = 60_000) => waitForReceipt(rpc, hash, timeout, polling),
    getTransaction: (hash) => getTransaction(rpc, hash),
  };
  return port;
}
