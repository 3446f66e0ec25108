// A plan: what one intent does at one block — the transactions to send, what they move, and
// their USD value at that block's pool prices. Pure data; the planners (plan-*.ts) make it,
// the executor signs and sends it.
import type { Address } from 'viem';
import type { ChainPort, TxRequest } from '../chain/chain-port';
import type { MarketSnapshot } from '../chain/market';
import type { TokenList } from '../chain/token-list';

export type PlannedStep = TxRequest & { label: string };

export type Plan = {
  action: 'swap' | 'send' | 'wrap' | 'unwrap' | 'withdraw';
  summary: string;
  /** What leaves the wallet, as "<decimal> <UNIT>". */
  amount: string;
  valueUsd: bigint;
  tokens: string[];
  to: Address | null;
  block: bigint;
  steps: PlannedStep[];
};

export type PlanContext = {
  chain: ChainPort;
  tokenList: TokenList;
  snapshot: MarketSnapshot;
  owner: Address;
  slippageBps: number;
  /**
   * What the spend policy lets through in a day, in USD (1e18): a router approval is for that
   * much of the token at the quoted price, or the swap's own amount if more — never more than
   * the policy lets spend in the next 24 h (a day's cap; no headroom, since a price move could
   * then approve past it), and enough that the day's other swaps need no approval of their own.
   */
  approvalCapUsd?: bigint;
};
