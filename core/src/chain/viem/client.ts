// The viem client under the adapter, and the guard every call goes through. Each JSON-RPC
// request has a timeout and a small retry count (rpc-transport.ts); the guard adds an outer
// deadline over all of it and maps whatever fails to the chain's typed errors, so a dead RPC
// surfaces as ChainUnavailableError instead of a hang.
import { createPublicClient, defineChain, type PublicClient } from 'viem';
import { ChainUnavailableError } from '../errors';
import { toChainError } from './rpc-errors';
import { rpcTransport } from './rpc-transport';

export interface RpcClientOptions {
  rpcUrl: string;
  chain: { id: number; name: string };
  /** Per JSON-RPC request. */
  timeoutMs: number;
  retryCount?: number;
}

/** Runs one port call: answers within the deadline, fails only with typed errors. */
export type Guard = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

export interface RpcClient {
  client: PublicClient;
  guard: Guard;
}

const RETRY_DELAY_MS = 50;

export function createRpcClient(opts: RpcClientOptions): RpcClient {
  const { timeoutMs } = opts;
  const retryCount = opts.retryCount ?? 1;
  const retryDelay = RETRY_DELAY_MS;

  const chain = defineChain({
    id: opts.chain.id,
    name: opts.chain.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [opts.rpcUrl] } },
  });
  // cacheTime 0: viem otherwise memoises eth_blockNumber for 4 s, which would freeze the
  // per-block caches above us.
  const client: PublicClient = createPublicClient({
    chain,
    cacheTime: 0,
    transport: rpcTransport(opts.rpcUrl, { timeoutMs, retryCount, retryDelay }),
  });

  // Backstop over viem's own per-request timeout: whatever happens inside, the caller gets an
  // answer within this budget.
  const deadlineMs = (timeoutMs + retryDelay * 2 ** retryCount) * (retryCount + 1) * 2 + 250;
  async function guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ChainUnavailableError(`${what}: no answer from the chain RPC within ${deadlineMs} ms`)),
        deadlineMs,
      );
    });
    try {
      return await Promise.race([fn(), deadline]);
    } catch (err) {
      throw toChainError(what, err);
    } finally {
      clearTimeout(timer);
    }
  }

  return { client, guard };
}
