// The one intent pipeline: parse → resolve → quote → value → gate → execute | hold | block.
// POST /v1/wallet/intent, messages with allow_act and acting standing intents all come
// through `submit`; withdrawals through `withdraw` (same gate, its own rules). Test keys run
// the same path over their own store (the overlay) up to signing and get a would-be
// transaction: nothing is sent, nothing is persisted (see `lanes`).
import { type IntentResult, type KeyKind, MAX_AMOUNT } from '@presence/protocol';
import type { Address } from 'viem';
import { formatUsd, USD_ONE } from '../chain/amounts';
import type { ChainPort } from '../chain/chain-port';
import type { Market } from '../chain/market';
import type { TokenList } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import { iso } from '../clock/clock';
import { type ClusterLocks, createLocalLocks } from '../concurrency/cluster-locks';
import { PresenceError } from '../errors/presence-error';
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
import type { Executed, IntentExecutor, IntentStore, Outcome } from './intent-executor';
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

/**
 * Where the time of one live intent that executed at once went, as performance.now()
 * readings: submitted → quoted (parsed, resolved, quoted and valued at a block) → gated
 * (policy checked, record stored) → sent (every transaction signed, stored and broadcast) →
 * settled (receipts in, record done, tx event emitted). Only for benchmarks and diagnostics
 * (see `onTiming`); nothing is measured while no one listens.
 */
export type IntentTiming = { intent_id: string; start: number; quoted: number; gated: number; sent: number; settled: number };
type Marks = Partial<IntentTiming>;

/** A final outcome of an intent of either key kind (see `onOutcome`). */
export type KindOutcome = Outcome & { caller: Caller };

/** How an intent in `executing` is carried out for one key kind. */
type Lane = {
  /** Carries a record out; resolves once it is done. */
  run(store: IntentStore, record: IntentRecord, marks?: Marks): Promise<Executed>;
  /** Follows a record already under way (a retry, a second approval) to its end. */
  resume(store: IntentStore, record: IntentRecord): Promise<Executed>;
  /** What every answer about such an intent carries. */
  answer: { simulated?: true };
};

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
};

export function createIntentPipeline(deps: IntentPipelineDeps) {
  const { holds } = deps;
  const { storeFor, clock, chain, tokenList, market, wallets, executor, policies, events, metrics } = deps;
  const locks = deps.locks ?? createLocalLocks();
  const gate = createSpendGate({ storeFor, clock, locks, metrics });
  const timingListeners = new Set<(t: IntentTiming) => void>();
  const outcomeListeners = new Set<(o: KindOutcome) => Promise<void> | void>();
  const publish = async (o: KindOutcome) => {
    metrics?.intent?.(o.status, o.caller.kind);
    for (const l of outcomeListeners) await l(o);
  };
  /** Simulations under way, by intent id: what a retry or a second approval waits for. */
  const rehearsals = new Map<string, Promise<Executed>>();

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

  /** A live intent: signed, stored and sent by the executor, which announces its outcome. */
  async function drive(store: IntentStore, record: IntentRecord, marks?: Marks): Promise<Executed> {
    // The record as its caller has just stored it: the gate's new one, or an approval's claim
    // (see the executor's `fresh`).
    const onSent = marks
      ? () => {
          marks.sent = performance.now();
        }
      : undefined;
    const done = await executor.drive(store, record, { onSent, fresh: true });
    if (marks) {
      marks.settled = performance.now();
      const t = { ...marks, intent_id: done.record.id } as IntentTiming;
      for (const l of timingListeners) l(t);
    }
    return done;
  }

  /** A test key's intent: signed at the nonce it would get, never sent; the record is done with that hash. */
  function rehearse(store: IntentStore, record: IntentRecord): Promise<Executed> {
    const running = (async (): Promise<Executed> => {
      const { hash } = await executor.simulate(record.account_id, record.steps).catch(async (e: unknown) => {
        // Same fate as a live record that could not be signed.
        await executor.release(store, record, e instanceof Error ? e.message : String(e));
        throw e;
      });
      const done = await store.transitionIntent(record.account_id, record.id, ['executing'], 'done', {
        txs: [{ hash, raw: '', nonce: -1, label: 'simulated' }],
        block: record.quote_block,
        executed_at: clock.now(),
        updated_at: clock.now(),
      });
      const executed = { record: done ?? record, hash, block: record.quote_block };
      if (done) await publish({ status: 'done', caller: { accountId: record.account_id, kind: 'test' }, ...executed });
      return executed;
    })();
    rehearsals.set(record.id, running);
    // Only the bookkeeping: the caller gets `running` itself, failure included.
    void running.catch(() => undefined).finally(() => rehearsals.delete(record.id));
    return running;
  }

  /**
   * The one place an intent's key kind changes how it runs (its store is the other: the
   * overlay, from `storeFor`). A test key's intent is rehearsed — signed but never sent, so
   * no nonce is used and nothing reaches the chain — because a test key must not act; its
   * answers say `simulated: true` so nobody mistakes the hash for a sent transaction; and
   * as no drive ends it, its outcome is published by the rehearsal instead of the executor.
   */
  const lanes = kindLanes();
  function kindLanes(): Record<KeyKind, Lane> {
    return {
      live: { run: drive, resume: (store, r) => executor.drive(store, r), answer: {} },
      test: {
        run: (store, r) => rehearse(store, r),
        // A rehearsal is not durable: one under way is waited for, there is nothing else to resume.
        resume: (_store, r) =>
          rehearsals.get(r.id) ??
          Promise.reject(new PresenceError('idempotency_in_progress', `intent ${r.id} is still running`, { retryAfter: 1 })),
        answer: { simulated: true },
      },
    };
  }

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

  function heldResult(r: IntentRecord, caller: Caller, mark: PasskeyMark): IntentResult {
    return {
      status: 'needs_confirm',
      intent_id: r.id,
      confirm_id: r.confirm_id as string,
      summary: r.summary,
      amount: r.amount,
      expires_at: iso(r.expires_at as number),
      value_usd: formatUsd(BigInt(r.value_usd)),
      ...lanes[caller.kind].answer,
      ...mark,
    };
  }
  const doneResult = (r: IntentRecord, tx: string, block: number, caller: Caller): IntentResult => ({
    status: 'done',
    intent_id: r.id,
    tx,
    block,
    summary: r.summary,
    amount: r.amount,
    value_usd: formatUsd(BigInt(r.value_usd)),
    ...lanes[caller.kind].answer,
  });

  /** What an existing record answers to a retry: never a second action. One still running
   * is waited for (its drive holds the intent), one left signed by an outage is resumed. */
  async function resultOf(r: IntentRecord, caller: Caller): Promise<IntentResult> {
    switch (r.state) {
      case 'held':
        return heldResult(r, caller, holds ? await holds.of(r) : {});
      case 'executing':
      case 'signed': {
        const { hash, block } = await lanes[caller.kind].resume(storeFor(caller.kind), r);
        return doneResult(r, hash, block, caller);
      }
      case 'done':
        return doneResult(r, r.txs.at(-1)?.hash as string, r.block as number, caller);
      default:
        throw new PresenceError('conflict', `intent ${r.id} ended ${r.state}${r.error ? `: ${r.error}` : ''}`, {
          extra: { intent_id: r.id },
        });
    }
  }

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
