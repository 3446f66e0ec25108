// Prepares a transaction for signing: its gas limit (estimate + 20% + headroom, unless the
// caller fixed it) and EIP-1559 fees, asked of the node as `from`.
import type { Address } from 'viem';
import { invalidRequest } from '../../errors/presence-error';
import type { PreparedTx, TxRequest } from '../chain-port';
import type { RpcClient } from './client';

export function prepareTransaction({ client, guard }: RpcClient, from: Address, tx: TxRequest): Promise<PreparedTx> {
  return guard('prepare', async () => {
    // Issued together, so they travel as one batch (viem's estimateFeesPerGas would ask for
    // the block and the tip one after the other).
    const [gas, latest, tip] = await Promise.all([
      tx.gas ??
        client
          // prepare: false — viem's request preparation (nonce, fees, blob hashes) is for a
          // transaction it would sign; for an estimate from an address it only costs CPU.
          .estimateGas({ account: from, to: tx.to, data: tx.data, value: tx.value, prepare: false })
          .then((g) => (g * 12n) / 10n + (tx.gasHeadroom ?? 0n)),
      client.getBlock({ blockTag: 'latest' }),
      client.estimateMaxPriorityFeePerGas(),
    ]);
    if (latest.baseFeePerGas === null) throw invalidRequest('the chain has no EIP-1559 base fee');
    // viem's own rule: room for the base fee to rise 20% before the transaction is mined.
    const maxFeePerGas = (latest.baseFeePerGas * 12n + 9n) / 10n + tip;
    return { to: tx.to, data: tx.data, value: tx.value, gas, maxFeePerGas, maxPriorityFeePerGas: tip };
  });
}
