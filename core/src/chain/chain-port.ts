// The chain port: the only way core reads from and writes to an EVM chain, as two halves —
// ChainReads (chain-reads.ts) and ChainWrites (chain-writes.ts) — and their composition here.
// Types only, plus the input rules every adapter applies; the viem adapter lives in ./viem and
// the embedded devnet in the package @presence/devnet. Adapters bound every call (a dead RPC
// surfaces as ChainUnavailableError instead of a hang) and sign locally, so a node only ever
// sees raw signed bytes.
import type { Address } from 'viem';
import { invalidRequest } from '../errors/presence-error';
import type { ChainReads } from './chain-reads';
import type { ChainWrites } from './chain-writes';

export type {
  Balances,
  CallRequest,
  ChainReads,
  PairReserves,
  Quote,
  ReadOptions,
  TxInfo,
  TxReceipt,
} from './chain-reads';
export type { ChainWrites, PreparedTx, SignedTx, SwapRequest, TxRequest } from './chain-writes';

/** Everything an adapter offers: what consumers that also sign and send take. */
export interface ChainPort extends ChainReads, ChainWrites {}

/** A swap or a quote needs a path of at least two tokens. */
export function requireSwapPath(path: readonly Address[]): void {
  if (path.length < 2) throw invalidRequest('a swap path needs at least two tokens');
}
