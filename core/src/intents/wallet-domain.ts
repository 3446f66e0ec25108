// Composition of everything that touches the chain for an account: wallets and their keys,
// chain views, the intent pipeline, confirmations and crash recovery (intent-recovery.ts).
// Built once from the chain port and token list the server chose (embedded devnet or a real
// network). It lives with the intents it composes, so `wallet/` (the signers) sits below them.
import type { Address } from 'viem';
import type { ChainPort } from '../chain/chain-port';
import type { TokenList } from '../chain/token-list';
import { createChainViews } from '../chain/views';
import type { Clock } from '../clock/clock';
import { type ClusterLocks, createLocalLocks } from '../concurrency/cluster-locks';
import type { EventsLog } from '../events/events-log';
import type { Caller } from '../keys/caller';
import type { Keystore } from '../keystore/keystore';
import type { CoreMetrics } from '../metrics/core-metrics';
import type { PasskeyHolds } from '../passkeys/passkey-holds';
import type { PolicyService } from '../policy/policy-service';
import type { StoreFor } from '../store/overlay-store';
import type { StorePort } from '../store/store-port';
import { createNonceAllocator } from '../wallet/signers/nonce-allocator';
import { createWallets } from '../wallet/signers/wallets';
import { createActionHistory } from './action-history';
import { createConfirmations } from './confirmations';
import { createIntentExecutor } from './intent-executor';
import { createIntentPipeline } from './intent-pipeline';
import { createIntentRecovery } from './intent-recovery';
import { walletView } from './wallet-view';

export type ChainRuntime = {
  chain: ChainPort;
  tokenList: TokenList;
  /** Devnet only: starting balances for a new wallet. */
  fund?: (address: Address) => Promise<void>;
  /**
   * Embedded devnet only: `listener` is called when the chain may have lost its last blocks
   * (its anvil was restarted from a state saved seconds before), so what this process counted
   * of a wallet's nonces is ahead of the chain.
   */
  onRewind?: (listener: () => void) => void;
};

export type WalletDomain = ReturnType<typeof createWalletDomain>;

export function createWalletDomain(deps: {
  /** The live store: wallets belong to the account (whichever key's request makes one), recovery is live. */
  store: StorePort;
  /** Where a key of each kind keeps its intents (the pipeline's). */
  storeFor: StoreFor;
  clock: Clock;
  events: EventsLog;
  policies: PolicyService;
  keystore: Keystore;
  runtime: ChainRuntime;
  /** A wallet's nonces and an account's spend gate are locked here (cluster-wide on PostgreSQL). */
  locks?: ClusterLocks;
  metrics?: CoreMetrics;
  /** Holds above passkey_over (absent: passkey approvals are off). */
  holds?: PasskeyHolds;
  /** Actions an account may have waiting for approval at once (accountLimits.held). */
  maxHeld?: number;
}) {
  const { store, clock, events, policies, keystore, runtime } = deps;
  const { chain, tokenList } = runtime;
  const wallets = createWallets({ store, keystore, clock, ...(runtime.fund ? { fund: (a: Address) => runtime.fund!(a) } : {}) });
  const views = createChainViews({ chain, tokenList });
  const locks = deps.locks ?? createLocalLocks();
  const nonces = createNonceAllocator(chain, locks);
  // The nonces after lost transactions would never be mined: count from the chain again.
  runtime.onRewind?.(() => nonces.forget());
  const executor = createIntentExecutor({ chain, wallets, nonces, clock });
  const pipeline = createIntentPipeline({
    locks,
    storeFor: deps.storeFor,
    clock,
    chain,
    tokenList,
    market: views.market,
    wallets,
    executor,
    policies,
    events,
    metrics: deps.metrics,
    holds: deps.holds,
    maxHeld: deps.maxHeld,
  });
  const confirmations = createConfirmations({ pipeline, events, clock });
  const recovery = createIntentRecovery({ store, clock, executor, confirmations });

  return {
    chain,
    tokenList,
    wallets,
    views,
    pipeline,
    confirmations,
    actions: createActionHistory({ storeFor: deps.storeFor, clock }),

    /** The wallet as GET /v1/wallet shows it: holdings, the policy and what is left of today's cap. */
    view: (caller: Caller) => walletView({ wallets, views, policies, pipeline, confirmations, tokenList }, caller),
    ...recovery,
  };
}
