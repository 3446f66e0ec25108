// What core writes to an EVM chain: transactions built (swap, approve, wrap, transfer),
// prepared (gas and fees), signed locally and broadcast. The other half of the chain port
// (chain-port.ts); a node only ever sees raw signed bytes.
import type { Address, Hash, Hex } from 'viem';

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

export interface ChainWrites {
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
}
