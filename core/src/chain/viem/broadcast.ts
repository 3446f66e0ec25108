// Broadcasts signed bytes. Sending is idempotent by hash: a resend of bytes the node already
// holds or has mined answers the same hash instead of a "known transaction" rejection.
import { BaseError, type Hash, type Hex, keccak256 } from 'viem';
import { ChainUnavailableError, TransactionRejectedError } from '../errors';
import type { RpcClient } from './client';
import { revertReason, toChainError } from './rpc-errors';

export function sendRaw({ client, guard }: RpcClient, raw: Hex): Promise<Hash> {
  return guard('eth_sendRawTransaction', async () => {
    try {
      return await client.request({ method: 'eth_sendRawTransaction', params: [raw] });
    } catch (err) {
      const mapped = toChainError('eth_sendRawTransaction', err);
      if (mapped instanceof ChainUnavailableError) throw mapped;
      // A resend after a crash or retry: the node may already hold or have mined it.
      const hash = keccak256(raw);
      const known = await client.getTransaction({ hash }).catch(() => null);
      if (known) return hash;
      throw new TransactionRejectedError(err instanceof BaseError ? revertReason(err) : String(err), {
        cause: err,
      });
    }
  });
}
