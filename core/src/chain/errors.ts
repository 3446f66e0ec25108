// Typed failures of the chain layer. Each carries a stable `type` string that the HTTP layer
// maps to a problem+json status; messages never contain keys or raw RPC URLs with secrets.

/** The RPC did not answer in time, refused the connection, or failed at the transport level. */
export class ChainUnavailableError extends Error {
  readonly type = 'chain_unavailable' as const;
  override readonly name: string = 'ChainUnavailableError';
  constructor(detail: string, options?: { cause?: unknown }) {
    super(detail, options);
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

/** The chain answered, but executing the call or transaction reverted (e.g. gas estimation of
 * a swap whose balance or allowance is short). `reason` is the revert reason when known. */
export class ChainRevertedError extends Error {
  readonly type = 'chain_reverted' as const;
  override readonly name = 'ChainRevertedError';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`execution reverted: ${reason}`, options);
  }
}

/** The node refused a signed transaction (nonce too low, insufficient funds for gas,
 * underpriced...). Nothing was broadcast. */
export class TransactionRejectedError extends Error {
  readonly type = 'chain_rejected' as const;
  override readonly name = 'TransactionRejectedError';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`transaction rejected: ${reason}`, options);
  }
}

/** A token, pair or pool that the list or the chain does not know. */
export class NotFoundError extends Error {
  readonly type = 'not_found' as const;
  override readonly name = 'NotFoundError';
}

/** Malformed input: a pair string, an amount string, an address. */
export class InvalidRequestError extends Error {
  readonly type = 'invalid_request' as const;
  override readonly name = 'InvalidRequestError';
}
