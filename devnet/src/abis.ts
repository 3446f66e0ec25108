// ABI fragments for what deploying and seeding the market calls (and the tests read), as
// human-readable signatures; the contracts themselves come from the full artifacts. The devnet
// depends on no Presence package, so these few lines are its own.
import { parseAbi } from 'viem';

export { erc20Abi } from 'viem';

export const wethAbi = parseAbi(['function deposit() payable']);

export const factoryAbi = parseAbi(['function getPair(address tokenA, address tokenB) view returns (address pair)']);

export const routerAbi = parseAbi([
  'function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256 amountA, uint256 amountB, uint256 liquidity)',
]);

export const pairAbi = parseAbi(['function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)']);
