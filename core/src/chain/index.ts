// Public surface of the chain layer: the port and its viem adapter, the embedded devnet,
// token lists, amounts and prices, the chain views, and the typed errors.

export {
  formatAmount,
  formatRatio,
  formatUnits,
  formatUsd,
  formatUsdPrice,
  NATIVE,
  type ParsedAmount,
  parseAmount,
  parseUnits,
  USD_DECIMALS,
  USD_ONE,
  usdToNumber,
} from './amounts';
export {
  type Balances,
  type CallRequest,
  type ChainPort,
  createViemChain,
  type PairReserves,
  type Quote,
  type ReadOptions,
  type SignedTx,
  type SwapRequest,
  type TxInfo,
  type TxReceipt,
  type TxRequest,
  type ViemChainOptions,
} from './chain-port';
export { FUNDING as DEVNET_FUNDING } from './devnet/deploy';
export { type Deployment, DeploymentSchema } from './devnet/deployment';
export { type Devnet, type DevnetOptions, startDevnet } from './devnet/devnet';
export {
  ChainRevertedError,
  ChainUnavailableError,
  ReceiptTimeoutError,
  TransactionRejectedError,
} from './errors';
export { createMarket, type Market, type MarketSnapshot, type Pool } from './market';
export { buildPriceBook, type PoolReserves, type PriceBook } from './pricing';
export { createSafetyChecker, SAFETY_RULES, type Verdict } from './safety';
export {
  loadTokenList,
  parseTokenList,
  resolveToken,
  type Token,
  type TokenList,
  TokenListSchema,
  TokenSchema,
  wethOf,
} from './token-list';
export {
  type PoolsView,
  PoolsViewSchema,
  type PoolView,
  PoolViewSchema,
  type PositionsView,
  PositionsViewSchema,
  type SafetyView,
  SafetyViewSchema,
  type TokensView,
  TokensViewSchema,
} from './view-schemas';
export { type ChainViews, createChainViews } from './views';
