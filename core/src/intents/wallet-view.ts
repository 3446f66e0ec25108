// The wallet as an account sees it (GET /v1/wallet): its holdings and LP positions at one
// block, and its spend policy with what is spent and left of today's cap.
import type { WalletView } from '@presence/protocol';
import { formatUsd } from '../chain/amounts';
import type { TokenList } from '../chain/token-list';
import type { ChainViews } from '../chain/views';
import type { Caller } from '../keys/caller';
import type { PolicyService } from '../policy/policy-service';
import { spendLabel } from '../policy/spend-label';
import type { Wallets } from '../wallet/signers/wallets';
import type { Confirmations } from './confirmations';
import type { IntentPipeline } from './intent-pipeline';
import { capInUsd } from './intent-planner';

export async function walletView(
  parts: {
    wallets: Pick<Wallets, 'address'>;
    views: ChainViews;
    policies: Pick<PolicyService, 'get'>;
    pipeline: Pick<IntentPipeline, 'spentToday'>;
    confirmations: Pick<Confirmations, 'list'>;
    tokenList: TokenList;
  },
  caller: Caller,
): Promise<WalletView> {
  const { views, tokenList } = parts;
  const address = await parts.wallets.address(caller.accountId);
  const [positions, policy, snapshot, spent, pending] = await Promise.all([
    views.positions(address),
    parts.policies.get(caller),
    views.market.snapshot(),
    parts.pipeline.spentToday(caller),
    parts.confirmations.list(caller, { status: 'held' }),
  ]);
  const daily = capInUsd(policy.daily_cap, tokenList, snapshot);
  return {
    address,
    chain: { id: tokenList.chain.id, name: tokenList.chain.name },
    as_of_block: positions.as_of_block,
    balances: positions.holdings,
    lp: positions.lp.map((l) => ({ pair: l.pair, underlying: l.underlying, value_usd: l.value_usd })),
    total_usd: positions.total_usd,
    policy: {
      spend: spendLabel(policy),
      version: policy.version,
      per_tx_cap: policy.per_tx_cap,
      confirm_over: policy.confirm_over,
      daily_cap: policy.daily_cap,
      spent_today: formatUsd(spent),
      left_today: formatUsd(daily > spent ? daily - spent : 0n),
    },
    pending_confirmations: pending.length,
  };
}
