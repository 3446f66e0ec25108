// Translates viem's error zoo into the chain layer's typed errors. Transport failures become
// ChainUnavailableError; execution failures become ChainRevertedError. Messages are built
// here from fixed text plus revert reasons, never from viem's message, which embeds the RPC
// URL (and with it any API key in the URL).
import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  ExecutionRevertedError,
  HttpRequestError,
  InsufficientFundsError,
  LimitExceededRpcError,
  ResourceUnavailableRpcError,
  RpcError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
} from 'viem';
import { PresenceError } from '../../errors/presence-error';
import { ChainRevertedError, ChainUnavailableError } from '../errors';

// Already typed (a chain error, or a bad input caught before the RPC): passed on as it is.
const ours = (err: unknown) => err instanceof PresenceError;

function isTransport(e: unknown): boolean {
  return e instanceof TimeoutError || e instanceof HttpRequestError || e instanceof WebSocketRequestError || e instanceof SocketClosedError;
}

/** The node executed the call or transaction and it failed (as opposed to viem refusing
 * the input, which stays a programming error). */
function isExecutionFailure(e: unknown): boolean {
  return (
    e instanceof ExecutionRevertedError ||
    e instanceof ContractFunctionRevertedError ||
    e instanceof ContractFunctionZeroDataError ||
    e instanceof InsufficientFundsError ||
    e instanceof RpcRequestError ||
    e instanceof RpcError
  );
}

/** The revert reason, if the error chain carries one. */
export function revertReason(err: BaseError): string {
  const fn = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (fn?.reason) return fn.reason;
  if (fn?.data?.errorName) return fn.data.errorName;
  const exec = err.walk((e) => e instanceof ExecutionRevertedError) as ExecutionRevertedError | null;
  if (exec) {
    const m = /reverted(?: with reason:)?:?\s*(.*)$/i.exec(exec.details ?? '');
    return m?.[1]?.trim() || 'reverted without a reason';
  }
  if (err.walk((e) => e instanceof InsufficientFundsError)) return 'insufficient funds for value + gas';
  const rpc = err.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  if (rpc) return rpc.details || rpc.shortMessage;
  return err.shortMessage;
}

/** Maps any error thrown by a viem call made for `what` ("eth_call", "balances"...). */
export function toChainError(what: string, err: unknown): Error {
  if (ours(err)) return err as Error;
  if (err instanceof BaseError) {
    const transport = err.walk(isTransport);
    if (transport instanceof TimeoutError) {
      return new ChainUnavailableError(`${what}: the chain RPC did not answer in time`, { cause: err });
    }
    if (transport instanceof HttpRequestError && transport.status) {
      return new ChainUnavailableError(`${what}: the chain RPC answered HTTP ${transport.status}`, { cause: err });
    }
    if (transport) return new ChainUnavailableError(`${what}: the chain RPC is unreachable`, { cause: err });
    if (err.walk((e) => e instanceof LimitExceededRpcError || e instanceof ResourceUnavailableRpcError)) {
      return new ChainUnavailableError(`${what}: the chain RPC is rate limiting or busy`, { cause: err });
    }
    if (err.walk(isExecutionFailure)) return new ChainRevertedError(revertReason(err), { cause: err });
    return err;
  }
  // fetch() failures that escaped viem's wrapping (TypeError: fetch failed, ECONNREFUSED...).
  if (err instanceof TypeError || (err as { code?: string })?.code?.startsWith?.('E')) {
    return new ChainUnavailableError(`${what}: the chain RPC is unreachable`, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}
