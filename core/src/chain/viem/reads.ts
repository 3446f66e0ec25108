// The port's reads over viem: chain health, balances and ERC-20 state, the Uniswap V2 pairs
// and quotes, nonces, code and eth_call. Each may be pinned to a block (ReadOptions), and
// the multi-call reads pin themselves to one block so their parts agree.
import { type Address, zeroAddress } from 'viem';
import { invalidRequest } from '../../errors/presence-error';
import { erc20Abi, factoryAbi, pairAbi, routerAbi } from '../abis';
import { requireSwapPath } from '../chain-port';
import type { ChainReads, ReadOptions } from '../chain-reads';
import type { TokenList } from '../token-list';
import type { RpcClient } from './client';

/** The reads that are calls over the RPC client (the rest are fields or live in viem-chain.ts). */
export type RpcReads = Pick<
  ChainReads,
  | 'health'
  | 'blockNumber'
  | 'balances'
  | 'tokenBalance'
  | 'totalSupply'
  | 'allowance'
  | 'pair'
  | 'quoteExactIn'
  | 'nonceOf'
  | 'getCode'
  | 'call'
>;

const blockTag = (o?: ReadOptions) => (o?.block !== undefined ? { blockNumber: o.block } : {});

export function createReads({ client, guard }: RpcClient, tokenList: TokenList): RpcReads {
  const { router, factory } = tokenList.dex;

  // Pair addresses never change once created, so a found pair is cached for good; a missing
  // one is asked again next time (it may have been created since).
  const pairAddresses = new Map<string, Address>();
  async function pairAddress(a: Address, b: Address, o?: ReadOptions): Promise<Address | null> {
    const key = [a, b].sort().join(':');
    const cached = pairAddresses.get(key);
    if (cached) return cached;
    const found = await client.readContract({
      address: factory,
      abi: factoryAbi,
      functionName: 'getPair',
      args: [a, b],
      ...blockTag(o),
    });
    if (found === zeroAddress) return null;
    pairAddresses.set(key, found);
    return found;
  }

  const erc20Read = (
    token: Address,
    fn: 'balanceOf' | 'totalSupply' | 'allowance',
    args: readonly Address[],
    o?: ReadOptions,
  ): Promise<bigint> =>
    client.readContract({ address: token, abi: erc20Abi, functionName: fn, args, ...blockTag(o) } as never) as Promise<bigint>;

  return {
    health: () =>
      guard('health', async () => {
        const [id, block] = await Promise.all([client.getChainId(), client.getBlockNumber()]);
        if (id !== tokenList.chain.id) {
          throw new Error(`the RPC serves chain ${id} but the token list is for chain ${tokenList.chain.id}`);
        }
        return { chainId: id, block };
      }),

    blockNumber: () => guard('eth_blockNumber', () => client.getBlockNumber()),

    balances: (owner, o) =>
      guard('balances', async () => {
        const block = o?.block ?? (await client.getBlockNumber());
        const [eth, ...amounts] = await Promise.all([
          client.getBalance({ address: owner, blockNumber: block }),
          ...tokenList.tokens.map((t) => erc20Read(t.address, 'balanceOf', [owner], { block })),
        ]);
        return {
          owner,
          block,
          eth,
          tokens: tokenList.tokens.map((token, i) => ({ token, amount: amounts[i] ?? 0n })),
        };
      }),

    tokenBalance: (token, owner, o) => guard('balanceOf', () => erc20Read(token, 'balanceOf', [owner], o)),
    totalSupply: (token, o) => guard('totalSupply', () => erc20Read(token, 'totalSupply', [], o)),
    allowance: (token, owner, spender, o) => guard('allowance', () => erc20Read(token, 'allowance', [owner, spender], o)),

    pair: (tokenA, tokenB, o) =>
      guard('pair', async () => {
        if (tokenA === tokenB) throw invalidRequest('a pair needs two different tokens');
        const block = o?.block ?? (await client.getBlockNumber());
        const address = await pairAddress(tokenA, tokenB, { block });
        if (!address) return null;
        const [r0, r1] = await client.readContract({
          address,
          abi: pairAbi,
          functionName: 'getReserves',
          blockNumber: block,
        });
        // Uniswap V2 orders a pair's tokens by address, so no token0() call is needed.
        const aIsToken0 = tokenA.toLowerCase() < tokenB.toLowerCase();
        return {
          address,
          tokenA,
          tokenB,
          reserveA: aIsToken0 ? r0 : r1,
          reserveB: aIsToken0 ? r1 : r0,
          block,
        };
      }),

    quoteExactIn: (path, amountIn, o) =>
      guard('quote', async () => {
        requireSwapPath(path);
        if (amountIn <= 0n) throw invalidRequest('amount in must be positive');
        const block = o?.block ?? (await client.getBlockNumber());
        const amounts = await client.readContract({
          address: router,
          abi: routerAbi,
          functionName: 'getAmountsOut',
          args: [amountIn, path],
          blockNumber: block,
        });
        return { path, amountIn, amountOut: amounts[amounts.length - 1] ?? 0n, amounts: [...amounts], block };
      }),

    nonceOf: (address, tag) => guard('eth_getTransactionCount', () => client.getTransactionCount({ address, blockTag: tag })),

    getCode: (address, o) => guard('eth_getCode', async () => (await client.getCode({ address, ...blockTag(o) })) ?? '0x'),

    call: (req, o) =>
      guard('eth_call', async () => {
        const { data } = await client.call({
          to: req.to,
          data: req.data,
          account: req.from,
          value: req.value,
          stateOverride: req.stateOverride,
          ...blockTag(o),
        });
        return data ?? '0x';
      }),
  };
}
