// ABI fragments for the contracts the chain layer calls, as human-readable signatures. parseAbi
// takes them as a const type parameter, so viem still types every argument and result. Only
// what we call; deployment uses the full artifacts.
import { parseAbi } from 'viem';

export { erc20Abi } from 'viem';

export const wethAbi = parseAbi(['function deposit() payable', 'function withdraw(uint256 wad)']);

export const pairAbi = parseAbi([
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
]);

export const factoryAbi = parseAbi(['function getPair(address tokenA, address tokenB) view returns (address pair)']);

export const routerAbi = parseAbi([
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
  'function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[] amounts)',
  'function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
  'function swapExactTokensForTokensSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function swapExactETHForTokensSupportingFeeOnTransferTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable',
  'function swapExactTokensForETHSupportingFeeOnTransferTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline)',
  'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity)',
]);

// The safety probe's ABIs live apart (probe-abis.ts): the safety check is core, not adapter,
// and erc20Abi above comes from viem's root entry, which core's root must not load.
export { mintAbi, ownableAbi, safetyProbeAbi } from './probe-abis';
