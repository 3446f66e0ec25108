// The chain port: the only way core reads from and writes to an EVM chain. Types only, plus
// the input rules every adapter applies; the viem adapter lives in ./viem and the embedded
// devnet in the package @presence/devnet. Adapters bound every call (a dead RPC surfaces as ChainUnavailableError
// instead of a hang) and sign locally, so a node only ever sees raw signed bytes.
import type { Address, Hash, Hex, StateOverride } from 'viem';
import { invalidRequest } from '../errors/presence-error';
import type { Token, TokenList } from './token-list';

/** An unsigned transaction: what to call, with what, and how much ETH to attach. `gas` skips
 * estimation (needed when the call only succeeds after an earlier, still-pending tx). */
export interface TxRequest {
  to: Address;
  data: Hex;
  value: bigint;
  gas?: bigint;
  /** Added to the estimate for costs the estimate cannot see (a swap's per-hop headroom). */
  gasHeadroom?: bigint;
}

/** A transaction with its gas limit and fees filled in, ready to sign at any nonce. */
export interface PreparedTx {
  to: Address;
  data: Hex;
  value: bigint;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface SignedTx {
  raw: Hex;
  hash: Hash;
  from: Address;
  nonce: number;
  gas: bigint;
  maxFeePerGas: bigint;
}

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

export interface SwapRequest {
  path: Address[];
  amountIn: bigint;
  minAmountOut: bigint;
  recipient: Address;
  /** Unix seconds; defaults to 20 minutes from now. */
  deadline?: bigint;
  /** Pay with native ETH (path[0] must be WETH). */
  nativeIn?: boolean;
  /** Receive native ETH (the last hop must be WETH). */
  nativeOut?: boolean;
  /** Use the router's fee-on-transfer variants. */
  feeOnTransfer?: boolean;
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

export interface ChainPort {
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
  buildSwap(req: SwapRequest): TxRequest;
  buildApprove(token: Address, spender: Address, amount: bigint): TxRequest;
  buildWrap(amount: bigint): TxRequest;
  buildUnwrap(amount: bigint): TxRequest;
  /** 'ETH' sends the native coin. */
  buildTransfer(token: Address | 'ETH', to: Address, amount: bigint): TxRequest;
  /** Fills gas (estimate + 20% + headroom, unless tx.gas) and EIP-1559 fees, as `from`. */
  prepareTransaction(from: Address, tx: TxRequest): Promise<PreparedTx>;
  /** Signs locally; no RPC, sends nothing. */
  signPrepared(privateKey: Hex, tx: PreparedTx, nonce: number): Promise<SignedTx>;
  /** prepareTransaction then signPrepared. */
  signTransaction(privateKey: Hex, tx: TxRequest, nonce: number): Promise<SignedTx>;
  /** Broadcasts; resending bytes the node already has answers the same hash. After a
   * ChainUnavailableError the node may or may not have the tx: resend the same bytes. */
  sendRaw(raw: Hex): Promise<Hash>;
  waitForReceipt(hash: Hash, timeoutMs?: number): Promise<TxReceipt>;
  /** 'latest' is the number of mined transactions; 'pending' includes the mempool. */
  nonceOf(address: Address, tag: 'pending' | 'latest'): Promise<number>;
  getTransaction(hash: Hash): Promise<TxInfo | null>;
  getCode(address: Address, opts?: ReadOptions): Promise<Hex>;
  /** eth_call, optionally with state overrides (used by the safety probe). */
  call(req: CallRequest, opts?: ReadOptions): Promise<Hex>;
}

/** A swap or a quote needs a path of at least two tokens. */
export function requireSwapPath(path: readonly Address[]): void {
  if (path.length < 2) throw invalidRequest('a swap path needs at least two tokens');
}
