// The one intent pipeline: parse → resolve → quote → value → gate → execute | hold | block.
// POST /v1/wallet/intent, messages with allow_act and acting standing intents all come
// through `submit`; withdrawals through `withdraw` (same gate, its own rules). Test keys run
// the same path over their own store (the overlay) up to signing and get a would-be
// transaction: nothing is sent, nothing is persisted (see `lanes`).
import { type IntentResult, MAX_AMOUNT } from '@presence/protocol';
import type { Address } from 'viem';
import { formatUsd, USD_ONE } from '../chain/amounts';
import type { ChainPort } from '../chain/chain-port';
import type { Market } from '../chain/market';
import type { TokenList } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { type ClusterLocks, createLocalLocks } from '../concurrency/cluster-locks';
import type { EventsLog } from '../events/events-log';
import { accountCaller, type Caller } from '../keys/caller';
import { randomBase62 } from '../keys/key-secret';
import type { CoreMetrics } from '../metrics/core-metrics';
import type { PasskeyHolds, PasskeyMark } from '../passkeys/passkey-holds';
import type { GateAction } from '../policy/policy-gate';
import type { PolicyService } from '../policy/policy-service';
import { checkAmountUnit } from '../policy/policy-units';
import type { IntentRecord } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { Wallets } from '../wallet/signers/wallets';
import { intentAnswers } from './intent-answers';
import type { IntentExecutor } from './intent-executor';
import { createKindLanes, type IntentTiming, type KindOutcome, type Marks } from './intent-lanes';
import { type ParsedIntent, parseIntent } from './intent-parser';
import { capInUsd, type Plan, planIntent } from './intent-planner';
import { createSpendGate, type Decision } from './spend-gate';

export type Submission = {
  caller: Caller;
  text: string;
  source: IntentRecord['source'];
  idempotencyKey?: string | null;
  context?: Record<string, unknown> | null;
};

export type IntentPipeline = ReturnType<typeof createIntentPipeline>;

export type { IntentTiming, KindOutcome } from './intent-lanes';

/** What createIntentPipeline is built from. */
type IntentPipelineDeps = {
  storeFor: StoreFor;
  clock: Clock;
  chain: ChainPort;
  tokenList: TokenList;
  market: Market;
  wallets: Wallets;
  executor: IntentExecutor;
  policies: PolicyService;
  events: EventsLog;
  /** The gate's lock per account (cluster-wide on PostgreSQL). */
  locks?: ClusterLocks;
  metrics?: CoreMetrics;
  /** Holds above the policy's passkey_over (absent: no passkey approvals, as without a chain keystore). */
  holds?: PasskeyHolds;
  /** Actions an account may have waiting for approval at once (accountLimits.held). */
  maxHeld?: number;
};

export function createIntentPipeline(deps: IntentPipelineDeps) {
  const { holds } = deps;
  const { storeFor, clock, chain, tokenList, market, wallets, executor, policies, events, metrics } = deps;
  const locks = deps.locks ?? createLocalLocks();
  const gate = createSpendGate({ storeFor, clock, locks, metrics, maxHeld: deps.maxHeld });
  const timingListeners = new Set<(t: IntentTiming) => void>();
  const outcomeListeners = new Set<(o: KindOutcome) => Promise<void> | void>();
  const publish = async (o: KindOutcome) => {
    metrics?.intent?.(o.status, o.caller.kind);
    for (const l of outcomeListeners) await l(o);
  };
  const lanes = createKindLanes({ executor, clock, publish, timingListeners });

  /** Plans at the current block: reads only, so it runs outside the gate's lock. */
  async function planFor(caller: Caller, parsed: ParsedIntent, kind?: 'withdraw', marks?: Marks) {
    // The wallet first: on the devnet a new wallet is funded on first use, and a snapshot taken
    // alongside would predate the funding, so the plan would see an empty wallet.
    const owner = await wallets.address(caller.accountId);
    const [snapshot, policy] = await Promise.all([market.snapshot(), policies.get(caller)]);
    const plan = await planIntent(parsed, {
      chain,
      tokenList,
      snapshot,
      owner,
      slippageBps: policy.max_slippage_bps,
      // A policy stored before amounts were bounded may name more than MAX_AMOUNT: approvals stay within it.
      // biome-ignore lint/complexity/useMathMinMax: these are bigints, which Math.min does not take
      approvalCapUsd: [capInUsd(policy.daily_cap, tokenList, snapshot), MAX_AMOUNT * USD_ONE].reduce((a, b) => (a < b ? a : b)),
    });
    if (marks) marks.quoted = performance.now();
    if (kind) plan.action = kind;
    // Deny rules may name a token by symbol or by address: the gate gets both.
    const tokens = plan.tokens.flatMap((sym) => {
      const listed = sym === 'ETH' ? undefined : tokenList.tokens.find((t) => t.symbol === sym);
      return listed ? [sym, listed.address] : [sym];
    });
    const action: GateAction = { action: plan.action, tokens, to: plan.to, valueUsd: plan.valueUsd };
    const usdOf = (amount: string) => capInUsd(amount, tokenList, snapshot);
    return { plan, policy, action, usdOf };
  }
  const steps = (plan: Plan) =>
    plan.steps.map((s) => ({
      to: s.to,
      data: s.data,
      value: s.value.toString(),
      ...(s.gas ? { gas: s.gas.toString() } : {}),
      ...(s.gasHeadroom ? { gas_headroom: s.gasHeadroom.toString() } : {}),
      label: s.label,
    }));

  /** Executes a record already in `executing`. */
  const execute = (caller: Caller, record: IntentRecord, marks?: Marks) => lanes[caller.kind].run(storeFor(caller.kind), record, marks);

  executor.onOutcome((o) => (o.status === 'done' ? announceTx(o.record, o.hash, o.block) : undefined));
  executor.onOutcome((o) => publish({ ...o, caller: accountCaller(o.record.account_id) }));

  async function announceTx(r: IntentRecord, hash: string, block: number) {
    // Appended together with the other intents of the account settling meanwhile (one commit).
    await events.emitTogether(accountCaller(r.account_id), 'tx', {
      hash,
      block,
      intent: { id: r.id, summary: r.summary, amount: r.amount, source: r.source },
    });
  }
  const { heldResult, doneResult, resultOf } = intentAnswers({ lanes, holds, storeFor });

  async function admit(s: Submission, parsed: ParsedIntent, kind?: 'withdraw'): Promise<IntentResult> {
    const marks: Marks | undefined = timingListeners.size > 0 ? { start: performance.now() } : undefined;
    const { caller } = s;
    const istore = storeFor(caller.kind);
    const prior = async () => (s.idempotencyKey ? istore.findIntentByIdempotencyKey(caller.accountId, s.idempotencyKey) : null);
    const early = await prior();
    if (early) return resultOf(early, caller);
    const planned = await planFor(caller, parsed, kind, marks);
    const { plan, policy } = planned;
    const build = (decision: Decision): IntentRecord => {
      const now = clock.now();
      const held = decision === 'hold';
      return {
        id: `in_${randomBase62(16)}`,
        account_id: caller.accountId,
        source: s.source,
        idempotency_key: s.idempotencyKey ?? null,
        text: s.text,
        action: plan.action,
        summary: plan.summary,
        amount: plan.amount,
        value_usd: plan.valueUsd.toString(),
        tokens: plan.tokens,
        to: plan.to,
        quote_block: Number(plan.block),
        steps: steps(plan),
        state: held ? 'held' : 'executing',
        confirm_id: held ? `cf_${randomBase62(16)}` : null,
        expires_at: held ? now + policy.confirm_timeout_s * 1000 : null,
        txs: [],
        block: null,
        error: null,
        context: s.context ?? null,
        created_at: now,
        updated_at: now,
        executed_at: null,
      };
    };
    const admitted = await gate.admit({
      caller,
      idempotencyKey: s.idempotencyKey ?? null,
      gate: planned,
      build,
    });
    if (marks) marks.gated = performance.now();
    if ('existing' in admitted) return resultOf(admitted.existing, caller);
    const record = admitted.created;
    if (record.state === 'held') {
      metrics?.intent?.('held', caller.kind);
      const mark = holds?.needed(policy, plan.valueUsd, planned.usdOf) ? await holds.issue(caller, record) : {};
      await events.emit(caller, 'needs_confirm', {
        confirm_id: record.confirm_id as string,
        intent_id: record.id,
        summary: record.summary,
        amount: record.amount,
        value_usd: formatUsd(BigInt(record.value_usd)),
        expires_at: iso(record.expires_at as number),
        timeout_s: Math.round(((record.expires_at as number) - record.created_at) / 1000),
        ...mark,
      });
      return heldResult(record, caller, mark);
    }
    const { record: done, hash, block } = await execute(caller, record, marks);
    return doneResult(done, hash, block, caller);
  }

  return {
    // async, so an unreadable text rejects like every other refusal instead of throwing at the call.
    submit: async (s: Submission) => admit(s, parseIntent(s.text)),
    withdraw: async (s: Omit<Submission, 'text' | 'source'> & { to: Address; amount: string }) => {
      checkAmountUnit('amount', s.amount, tokenList, { usd: false });
      const [n, unit] = s.amount.split(' ') as [string, string];
      const text = `withdraw ${s.amount} to ${s.to}`;
      return admit({ ...s, text, source: 'withdraw' }, { kind: 'send', amount: n, token: unit, to: s.to }, 'withdraw');
    },
    /**
     * For confirmations: re-plan a held intent at the current block, gate it again and hand the
     * plan to `claim` (which moves the record out of `held`). The gate and the claim run under
     * the same per-account gate lock as a new intent: otherwise two approvals answered together
     * (or an approval racing a new intent) each see today's spend without the other and both
     * squeeze under the daily cap. Unless the approval was made with a passkey, an action now
     * above passkey_over is refused with passkey_required (its approve link made if it had none).
     */
    replan: async <T>(
      r: IntentRecord,
      caller: Caller,
      claim: (plan: Plan) => Promise<T>,
      { passkeyVerified = false }: { passkeyVerified?: boolean } = {},
    ): Promise<T> => {
      const withdraw = r.action === 'withdraw';
      const planned = await planFor(caller, withdraw ? withdrawParsed(r) : parseIntent(r.text), withdraw ? 'withdraw' : undefined);
      return gate.recheck(caller, planned, async () => {
        if (!passkeyVerified && holds?.needed(planned.policy, planned.plan.valueUsd, planned.usdOf)) {
          await holds.issue(caller, r);
          throw holds.required(r);
        }
        return claim(planned.plan);
      });
    },
    /** The passkey mark of a held record (absent without passkey approvals). */
    passkeyOf: (r: IntentRecord): Promise<PasskeyMark> => (holds ? holds.of(r) : Promise.resolve({})),
    /** The refusal of a plain approve of a hold made over passkey_over; null when it may be approved plainly. */
    passkeyRefusal: async (r: IntentRecord) => (holds && (await holds.of(r)).passkey ? holds.required(r) : null),
    execute: (caller: Caller, record: IntentRecord) => execute(caller, record),
    /** Follows a record already executing (another answer's, or one an outage left) to its end. */
    resume: (caller: Caller, record: IntentRecord) => lanes[caller.kind].resume(storeFor(caller.kind), record),
    /** What every answer about an intent of this caller's key kind carries (`simulated: true` for a test key). */
    answerOf: (caller: Caller) => lanes[caller.kind].answer,
    /**
     * Every final outcome, of either key kind, once (live ones from the executor's drives, a
     * test key's from its rehearsal).
     */
    onOutcome(listener: (o: KindOutcome) => Promise<void> | void) {
      outcomeListeners.add(listener);
      return () => outcomeListeners.delete(listener);
    },
    /** Reports the phase timings of every live intent that executes at once (benchmarks). */
    onTiming(listener: (t: IntentTiming) => void) {
      timingListeners.add(listener);
      return () => timingListeners.delete(listener);
    },
    steps,
    storeFor,
    spentToday: gate.spentToday,
  };
}

function withdrawParsed(r: IntentRecord): ParsedIntent {
  const [n, unit] = r.amount.split(' ') as [string, string];
  return { kind: 'send', amount: n, token: unit, to: r.to as string };
}
