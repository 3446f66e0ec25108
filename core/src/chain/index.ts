// Public surface of the chain layer: the port, token lists, amounts and prices, the chain
// views and the typed errors; and, re-exported from their own folders, the viem adapter and
// the embedded devnet.

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
export type {
  Balances,
  CallRequest,
  ChainPort,
  PairReserves,
  Quote,
  ReadOptions,
  SignedTx,
  SwapRequest,
  TxInfo,
  TxReceipt,
  TxRequest,
} from './chain-port';
// The adapters: the only lines here that reach into ./viem and ./devnet (each will become a
// package subpath of its own).
export {
  anvilBinary,
  attachDevnet,
  DEVNET_ANVIL_ARGS,
  DEVNET_FUNDING,
  type Deployment,
  type DeploymentBook,
  DeploymentSchema,
  type Devnet,
  type DevnetOptions,
  fileDeploymentBook,
  freeLoopbackPort,
  spawnAnvil,
  startDevnet,
} from './devnet/index';
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
export { createViemChain, type ViemChainOptions } from './viem/index';
export { type ChainViews, createChainViews } from './views';
