// The chain layer as `@presence/core` shows it (the `chain` namespace): the port's types, token
// lists, amounts and the chain's typed errors. The adapters are not here: the viem client is
// `@presence/core/viem` (./viem/index.ts); the embedded anvil is the package @presence/devnet.

// One rounding for people, shared with every surface (@presence/protocol).
export { readableDecimal } from '@presence/protocol';
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
  ChainReads,
  ChainWrites,
  PairReserves,
  Quote,
  ReadOptions,
  SignedTx,
  SwapRequest,
  TxInfo,
  TxReceipt,
  TxRequest,
} from './chain-port';
export {
  ChainRevertedError,
  ChainUnavailableError,
  ReceiptTimeoutError,
  TransactionRejectedError,
} from './errors';
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
