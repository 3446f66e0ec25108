// The port's transaction builders: Uniswap V2 swaps, ERC-20 approvals and transfers, WETH
// wraps, as calldata encoded against our ABIs. Pure: no RPC, nothing signed or sent.
import { encodeFunctionData } from 'viem';
import { invalidRequest } from '../../errors/presence-error';
import { erc20Abi, routerAbi, wethAbi } from '../abis';
import { type ChainPort, requireSwapPath } from '../chain-port';
import type { TokenList } from '../token-list';

export type TxBuilders = Pick<ChainPort, 'buildSwap' | 'buildApprove' | 'buildWrap' | 'buildUnwrap' | 'buildTransfer'>;

// A Uniswap V2 pair writes its two cumulative-price slots only when block.timestamp has
// moved since its last update. anvil estimates at the latest block's timestamp, so a swap
// mined a second later can cost up to two fresh SSTOREs (2 × 22,100 gas) per hop more than
// estimated and run out of gas. Unused gas is not charged, so the headroom is free.
const SWAP_HOP_HEADROOM = 45_000n;

const SWAP_DEADLINE_SECONDS = 20 * 60;

/** `now` is Unix milliseconds, for swaps that leave their deadline to us. */
export function createTxBuilders(dex: TokenList['dex'], now: () => number): TxBuilders {
  const { router, weth } = dex;
  const defaultDeadline = () => BigInt(Math.floor(now() / 1000) + SWAP_DEADLINE_SECONDS);

  return {
    buildSwap(req) {
      const { path, amountIn, minAmountOut, recipient } = req;
      const deadline = req.deadline ?? defaultDeadline();
      requireSwapPath(path);
      if (req.nativeIn && req.nativeOut) throw invalidRequest('a swap cannot be native on both ends');
      if (req.nativeIn && path[0] !== weth) throw invalidRequest('a native-in swap must start at WETH');
      if (req.nativeOut && path[path.length - 1] !== weth) {
        throw invalidRequest('a native-out swap must end at WETH');
      }
      const fot = req.feeOnTransfer === true;
      const gasHeadroom = SWAP_HOP_HEADROOM * BigInt(path.length - 1);
      if (req.nativeIn) {
        return {
          to: router,
          value: amountIn,
          gasHeadroom,
          data: encodeFunctionData({
            abi: routerAbi,
            functionName: fot ? 'swapExactETHForTokensSupportingFeeOnTransferTokens' : 'swapExactETHForTokens',
            args: [minAmountOut, path, recipient, deadline],
          }),
        };
      }
      return {
        to: router,
        value: 0n,
        gasHeadroom,
        data: encodeFunctionData({
          abi: routerAbi,
          functionName: req.nativeOut
            ? fot
              ? 'swapExactTokensForETHSupportingFeeOnTransferTokens'
              : 'swapExactTokensForETH'
            : fot
              ? 'swapExactTokensForTokensSupportingFeeOnTransferTokens'
              : 'swapExactTokensForTokens',
          args: [amountIn, minAmountOut, path, recipient, deadline],
        }),
      };
    },

    buildApprove: (token, spender, amount) => ({
      to: token,
      value: 0n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }),
    }),

    buildWrap: (amount) => ({ to: weth, value: amount, data: encodeFunctionData({ abi: wethAbi, functionName: 'deposit' }) }),

    buildUnwrap: (amount) => ({
      to: weth,
      value: 0n,
      data: encodeFunctionData({ abi: wethAbi, functionName: 'withdraw', args: [amount] }),
    }),

    buildTransfer: (token, to, amount) =>
      token === 'ETH'
        ? { to, value: amount, data: '0x' }
        : { to: token, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) },
  };
}
