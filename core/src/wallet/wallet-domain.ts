// Composition of everything that touches the chain for an account: wallets and their keys,
// chain views, the intent pipeline, confirmations and crash recovery. Built once from the
// chain port and token list the server chose (embedded devnet or a real network).
import type { WalletView } from '@presence/protocol';
import type { Address } from 'viem';
import { formatUsd } from '../chain/amounts';
import type { ChainPort } from '../chain/chain-port';
import type { TokenList } from '../chain/token-list';
import { createChainViews } from '../chain/views';
import type { Clock } from '../clock/clock';
import { type ClusterLocks, createLocalLocks } from '../concurrency/cluster-locks';
import type { EventsLog } from '../events/events-log';
import { createConfirmations } from '../intents/confirmations';
import { createIntentExecutor } from '../intents/intent-executor';
import { createIntentPipeline } from '../intents/intent-pipeline';
import { capInUsd } from '../intents/intent-planner';
import type { Caller } from '../keys/caller';
import type { Keystore } from '../keystore/keystore';
import type { CoreMetrics } from '../metrics/core-metrics';
import type { PasskeyHolds } from '../passkeys/passkey-holds';
import type { PolicyService } from '../policy/policy-service';
import { spendLabel } from '../policy/spend-label';
import type { IntentRecord } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { StorePort } from '../store/store-port';
import { createNonceAllocator } from './signers/nonce-allocator';
import { createWallets } from './signers/wallets';

export type ChainRuntime = {
  chain: ChainPort;
  tokenList: TokenList;
  /** Devnet only: starting balances for a new wallet. */
  fund?: (address: Address) => Promise<void>;
};

export type WalletDomain = ReturnType<typeof createWalletDomain>;

/** A record in flight this long with no drive under way was left behind by an outage. */
const STRANDED_AFTER_MS = 60_000;
/**
 * With other servers running, a record in flight this long is stranded even though its
 * server may still be alive: longer than any drive takes (its RPC calls time out in seconds),
 * so no live server is still driving it.
 */
export const CLUSTER_STRANDED_MS = 120_000;

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
}) {
  const { store, clock, events, policies, keystore, runtime } = deps;
  const { chain, tokenList } = runtime;
  const wallets = createWallets({ store, keystore, clock, ...(runtime.fund ? { fund: (a: Address) => runtime.fund!(a) } : {}) });
  const views = createChainViews({ chain, tokenList });
  const locks = deps.locks ?? createLocalLocks();
  const executor = createIntentExecutor({ chain, wallets, nonces: createNonceAllocator(chain, locks), clock });
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
  });
  const confirmations = createConfirmations({ pipeline, events, clock });

  async function finish(r: IntentRecord): Promise<'settled' | 'failed'> {
    if (r.state === 'executing' && r.txs.length === 0) {
      // Cut off before signing: an approved hold is held again (the expiry sweep right after
      // drops it if its time ran out meanwhile); a new intent fails and frees its key.
      await executor.release(store, r, 'interrupted before signing; nothing was sent');
      return 'failed';
    }
    try {
      await executor.drive(store, r);
      return 'settled';
    } catch {
      return 'failed';
    }
  }

  /**
   * At start: finish what a crash interrupted. A signed intent re-broadcasts its stored
   * bytes (it can land at most once) and settles; one interrupted before signing sent
   * nothing, so it fails plainly rather than acting on a stale quote. Their events (tx,
   * confirm, the resumed conversation) follow from the executor's outcome listeners.
   */
  async function recover(): Promise<{ settled: number; failed: number }> {
    let settled = 0;
    let failed = 0;
    for (const r of await store.intentsInStates(['executing', 'signed'])) {
      const outcome = await finish(r);
      if (outcome === 'settled') settled++;
      else failed++;
    }
    await confirmations.sweep();
    return { settled, failed };
  }

  /**
   * Upkeep: intents an outage left mid-flight while the server kept running (nobody retried
   * them) are resumed in the background, so a signed transaction is not left unsent and a
   * stranded record does not count against the daily cap forever.
   */
  async function resumeStranded(idleMs = STRANDED_AFTER_MS): Promise<number> {
    const cutoff = clock.now() - idleMs;
    let n = 0;
    for (const r of await store.intentsInStates(['executing', 'signed'])) {
      if (executor.isDriving(r.id) || r.updated_at > cutoff) continue;
      n++;
      // Its own outcome is announced by the drive; a store failure here waits for the next upkeep.
      void finish(r).catch(() => undefined);
    }
    return n;
  }

  return {
    chain,
    tokenList,
    wallets,
    views,
    pipeline,
    confirmations,

    async view(caller: Caller): Promise<WalletView> {
      const address = await wallets.address(caller.accountId);
      const [positions, policy, snapshot, spent, pending] = await Promise.all([
        views.positions(address),
        policies.get(caller),
        views.market.snapshot(),
        pipeline.spentToday(caller),
        confirmations.list(caller, 'held'),
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
    },

    recover,
    /**
     * What the server that takes the lead of the background work recovers. Alone (embedded, or
     * no other server connected) every interrupted intent: nothing else can be driving one.
     * With other servers running, only those idle past CLUSTER_STRANDED_MS: the rest may be
     * another live server's, mid-drive.
     */
    async recoverAsLeader({ othersRunning }: { othersRunning: boolean }): Promise<{ settled: number; failed: number; resumed: number }> {
      if (!othersRunning) return { ...(await recover()), resumed: 0 };
      return { settled: 0, failed: 0, resumed: await resumeStranded(CLUSTER_STRANDED_MS) };
    },

    resumeStranded,
  };
}
