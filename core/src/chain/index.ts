// Public surface of the chain layer: the port, token lists, amounts and prices, the chain
// views and the typed errors; and, re-exported from its own folder, the viem adapter.

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
// The viem adapter: the only line here that reaches into ./viem. (The embedded devnet is the
// package @presence/devnet.)
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
