// The spend gate of the intent pipeline: today's spend read, the policy's decision and the
// intent's record written, under one lock per account and key kind on every server, so two
// intents at once (on one server or two) cannot both squeeze under the same daily cap.
// Planning (a handful of RPCs) happens before, outside the lock, or an account's intents
// would queue on each other's quotes. New intents pass a batch at a time (see `admit`).
import type { Clock } from '../clock/clock';
import type { ClusterLocks } from '../concurrency/cluster-locks';
import { type BatchEntry, createLockBatches } from '../concurrency/lock-batches';
import { PresenceError } from '../errors/presence-error';
import type { Caller } from '../keys/caller';
import { accountLimits, assertRoom } from '../limits/account-limits';
import type { CoreMetrics } from '../metrics/core-metrics';
import { evaluatePolicy, type GateInput } from '../policy/policy-gate';
import type { IntentRecord } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';

const DAY_MS = 86_400_000;

/** What the gate needs of a plan: the policy it was planned under, the action, the pricing. */
export type GateCase = Pick<GateInput, 'policy' | 'action' | 'usdOf'>;
export type Decision = 'execute' | 'hold';

/** An intent at the gate: whose, under which Idempotency-Key, and how to build its record once decided. */
export type GateItem = {
  caller: Caller;
  idempotencyKey?: string | null;
  gate: GateCase;
  build: (decision: Decision) => IntentRecord;
};
export type Admitted = { existing: IntentRecord } | { created: IntentRecord };

export function createSpendGate({
  storeFor,
  clock,
  locks,
  metrics,
  maxHeld = accountLimits.held,
}: {
  storeFor: StoreFor;
  clock: Clock;
  locks: ClusterLocks;
  metrics?: CoreMetrics;
  /** Holds an account may have waiting at once (per key kind): one more is 409 `held_per_account`. */
  maxHeld?: number;
}) {
  const lockName = ({ accountId, kind }: Caller) => `gate:${kind}:${accountId}`;

  /** Spent since the start of today (UTC): the store keeps it as a running sum. */
  const spentToday = ({ accountId, kind }: Caller): Promise<bigint> =>
    storeFor(kind).spentSince(accountId, Math.floor(clock.now() / DAY_MS) * DAY_MS);

  /** The policy's decision against today's spend. Throws policy_block. */
  function decide(caller: Caller, { policy, action, usdOf }: GateCase, spentTodayUsd: bigint): Decision {
    try {
      return evaluatePolicy({ policy, action, spentTodayUsd, usdOf }).decision;
    } catch (e) {
      if (e instanceof PresenceError && e.type === 'policy_block') metrics?.intent?.('blocked', caller.kind);
      throw e;
    }
  }

  /**
   * A batch is everything that arrived while the previous one held the account's gate lock:
   * today's spend is read once and grows, in order, by each intent the batch lets through to
   * execute, and the batch's records are written together, all before the lock is released.
   * A record whose write fails leaves the spend counted for the rest of its batch: stricter,
   * never looser.
   */
  const batches = createLockBatches<GateItem, Admitted>(locks, async (batch) => {
    const { caller } = (batch[0] as BatchEntry<GateItem, Admitted>).item;
    const store = storeFor(caller.kind);
    const byKey = (key?: string | null) => (key ? store.findIntentByIdempotencyKey(caller.accountId, key) : null);
    // Asked again under the lock: a duplicate that arrived meanwhile created it already.
    const [today, ...priors] = await Promise.all([spentToday(caller), ...batch.map((e) => byKey(e.item.idempotencyKey))]);
    let spent = today as bigint;
    /** Records this batch is writing, by Idempotency-Key: a twin in the same batch answers with it. */
    const writing = new Map<string, Promise<IntentRecord>>();
    const settled: Promise<unknown>[] = [];
    /** The account's holds, read at the batch's first hold (none of the batch's writes before it is one), then counted here. */
    let held: number | null = null;
    for (const [i, { item, resolve, reject }] of batch.entries()) {
      const key = item.idempotencyKey;
      const existing = priors[i] as IntentRecord | null;
      const twin = key ? writing.get(key) : undefined;
      if (existing) {
        resolve({ existing });
        continue;
      }
      if (twin) {
        settled.push(twin.then((r) => resolve({ existing: r }), reject));
        continue;
      }
      try {
        const record = item.build(decide(caller, item.gate, spent));
        if (record.state === 'held') {
          held ??= await store.heldCount(caller.accountId);
          assertRoom('held', held, maxHeld);
          held++;
        }
        if (record.state === 'executing') spent += BigInt(record.value_usd);
        const write = store.createIntent(record).then(() => record);
        if (key) writing.set(key, write);
        settled.push(write.then((r) => resolve({ created: r }), reject));
      } catch (e) {
        reject(e);
      }
    }
    await Promise.all(settled);
  });

  return {
    spentToday,
    /** A new intent through the gate: its record created (held or executing), or the one its Idempotency-Key already made. */
    admit: (item: GateItem): Promise<Admitted> => batches(lockName(item.caller), item),
    /**
     * An intent already stored through the gate again (an approval): `claim` runs under the
     * gate's lock once the policy lets it through, so it and new intents are counted in turn.
     */
    recheck: <T>(caller: Caller, gate: GateCase, claim: () => Promise<T>): Promise<T> =>
      locks.withLock(lockName(caller), async () => {
        decide(caller, gate, await spentToday(caller));
        return claim();
      }),
  };
}
