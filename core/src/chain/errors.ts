// Typed failures that only the chain raises, as PresenceErrors with stable types, so they map
// to problem+json like every other failure and tools can report them as data. Bad input and
// unknown tokens use core's shorthands (`invalidRequest`, `notFound`) like the rest of core.
// Messages never contain keys or raw RPC URLs (which may embed secrets).
import { PresenceError } from '../errors/presence-error';

/** The RPC did not answer in time, refused the connection, or failed at the transport level. */
export class ChainUnavailableError extends PresenceError {
  override readonly name: string = 'ChainUnavailableError';
  constructor(detail: string, options?: { cause?: unknown }) {
    super('chain_unavailable', detail, options);
  }
}

/** A receipt did not arrive in time. Kept distinct so callers can keep waiting later
 * (the transaction may still land) while still being mapped as chain_unavailable. */
export class ReceiptTimeoutError extends ChainUnavailableError {
  override readonly name = 'ReceiptTimeoutError';
  constructor(
    readonly hash: string,
    timeoutMs: number,
  ) {
    super(`no receipt for ${hash} within ${timeoutMs} ms`);
  }
}

/** A refusal the chain gave a reason for: `reason` is kept, and the detail says what was refused. */
abstract class ChainRefusal extends PresenceError {
  constructor(
    type: 'chain_reverted' | 'chain_rejected',
    what: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(type, `${what}: ${reason}`, options);
  }
}

/** The chain answered, but executing the call or transaction reverted (e.g. gas estimation of
 * a swap whose balance or allowance is short). `reason` is the revert reason when known. */
export class ChainRevertedError extends ChainRefusal {
  override readonly name = 'ChainRevertedError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super('chain_reverted', 'execution reverted', reason, options);
  }
}

/** The node refused a signed transaction (nonce too low, insufficient funds for gas,
 * underpriced...). Nothing was broadcast. */
export class TransactionRejectedError extends ChainRefusal {
  override readonly name = 'TransactionRejectedError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super('chain_rejected', 'transaction rejected', reason, options);
  }
}
