// What core reads from an EVM chain: health, balances and ERC-20 state, Uniswap V2 pairs and
// quotes, nonces, transactions, receipts, code and eth_call. A consumer that only looks takes
// this half of the chain port (chain-port.ts), so its type says it never signs or sends.
import type { Address, Hash, Hex, StateOverride } from 'viem';
import type { Token, TokenList } from './token-list';

export interface TxReceipt {
  hash: Hash;
  block: bigint;
  status: 'success' | 'reverted';
  gasUsed: bigint;
}

export interface TxInfo {
  hash: Hash;
  from: Address;
  to: Address | null;
  nonce: number;
  value: bigint;
  /** null while pending. */
  block: bigint | null;
}

/** Reserves ordered as asked (A, B), not as the pair stores them. */
export interface PairReserves {
  address: Address;
  tokenA: Address;
  tokenB: Address;
  reserveA: bigint;
  reserveB: bigint;
  block: bigint;
}

export interface Balances {
  owner: Address;
  block: bigint;
  eth: bigint;
  tokens: { token: Token; amount: bigint }[];
}

export interface Quote {
  path: Address[];
  amountIn: bigint;
  amountOut: bigint;
  /** The router's getAmountsOut, one entry per hop plus the input. */
  amounts: bigint[];
  block: bigint;
}

export interface CallRequest {
  to: Address;
  data: Hex;
  from?: Address;
  value?: bigint;
  stateOverride?: StateOverride;
}

/** Reads may be pinned to a block so that a view sees one consistent state. */
export interface ReadOptions {
  block?: bigint;
}

export interface ChainReads {
  readonly chainId: number;
  readonly tokenList: TokenList;
  /** Checks that the RPC serves the list's chain; answers { chainId, block }. */
  health(): Promise<{ chainId: number; block: bigint }>;
  blockNumber(): Promise<bigint>;
  balances(owner: Address, opts?: ReadOptions): Promise<Balances>;
  tokenBalance(token: Address, owner: Address, opts?: ReadOptions): Promise<bigint>;
  totalSupply(token: Address, opts?: ReadOptions): Promise<bigint>;
  allowance(token: Address, owner: Address, spender: Address, opts?: ReadOptions): Promise<bigint>;
  /** The Uniswap V2 pair of two tokens, or null when none exists. */
  pair(tokenA: Address, tokenB: Address, opts?: ReadOptions): Promise<PairReserves | null>;
  quoteExactIn(path: Address[], amountIn: bigint, opts?: ReadOptions): Promise<Quote>;
  waitForReceipt(hash: Hash, timeoutMs?: number): Promise<TxReceipt>;
  /** 'latest' is the number of mined transactions; 'pending' includes the mempool. */
  nonceOf(address: Address, tag: 'pending' | 'latest'): Promise<number>;
  getTransaction(hash: Hash): Promise<TxInfo | null>;
  getCode(address: Address, opts?: ReadOptions): Promise<Hex>;
  /** eth_call, optionally with state overrides (used by the safety probe). */
  call(req: CallRequest, opts?: ReadOptions): Promise<Hex>;
}
