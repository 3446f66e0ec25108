// Standing intents: stored durably, evaluated on every new block and on the clock. A price
// trigger fires once per crossing: it disarms when it fires and re-arms only after the price
// has cleared the threshold by a 1% margin, so a price hovering at the line does not repeat
// every block. Evaluation reads one market snapshot per block for all intents of all
// accounts (one price read per pool per block, not per intent).
//
// Firing is exactly once, not at most once: the disarm and a pending fire (numbered, so it
// has a stable id per crossing) are one store write; the fire is then performed idempotently
// (the intent keyed by the fire, the message looked for past the ids it noted before
// speaking) and only then marked done. A crash anywhere in between leaves the fire pending,
// and the next beat completes it. Acting fires run off the beat, one at a time per account,
// so a swap waiting for its receipt never holds up every other account's alerts.
import { readableUsd } from '@presence/protocol';
import { formatUsd, formatUsdPrice } from '../chain/amounts';
import type { MarketSnapshot } from '../chain/market';
import type { Clock } from '../clock/clock';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { notFound } from '../errors/presence-error';
import type { WalletDomain } from '../intents/wallet-domain';
import type { Caller } from '../keys/caller';
import { type AccountLimits, accountLimits, assertRoom } from '../limits/account-limits';
import type { StandingFire, StandingRecord } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { StorePort } from '../store/store-port';
import type { Thread } from '../thread/thread';
import { createFirePerformer } from './standing-fires';
import type { StandingSpec } from './standing-parser';
import { prepareStanding, type StandingOwner } from './standing-prepare';
import { nextDailyAt } from './standing-time';

/** Re-arm margin: the price must clear the threshold by 1% (100 bps). */
const REARM_BPS = 100n;

export { ACT_RETRY_WINDOW_MS, fireIntentKey } from './standing-fires';
export type { StandingOwner } from './standing-prepare';
export { nextDailyAt } from './standing-time';

export type StandingService = ReturnType<typeof createStandingService>;

/** `store` (live) is what fires; `storeFor` is where each key kind creates, lists and cancels (a test key's never fire). */
const CLOCK_SLACK_MS = 1_000;

/** What createStandingService is built from. */
type StandingServiceDeps = {
  store: StorePort;
  storeFor: StoreFor;
  clock: Clock;
  thread: Thread;
  wallet: WalletDomain | null;
  /** `standing` caps the account's active standing intents in each kind's store (default `accountLimits`). */
  limits?: Pick<AccountLimits, 'standing'>;
};

export function createStandingService({ store, storeFor, clock, thread, wallet, limits = accountLimits }: StandingServiceDeps) {
  /** Ids created since the last evaluation: their trigger may already hold without a new block. */
  const fresh = new Set<string>();
  const inflight = new Map<string, Promise<void>>();
  const background = new Set<Promise<void>>();
  const actQueue = createKeyedLock();
  const beat = createKeyedLock();
  let lastBlock: bigint | null = null;
  /** When the previous pass started: intents created since (on any server) count as fresh. */
  let lastPassAt: number | null = null;

  const perform = createFirePerformer({ store, clock, thread, wallet });
  const prepare = (owner: StandingOwner, text: string, spec: StandingSpec, opts: { allowAct: boolean; id?: string; staged?: number }) =>
    prepareStanding({ wallet, clock, assertStandingRoom }, owner, text, spec, opts);

  /** Counted, then stored: intents made at once at the cap may pass it by the few in flight. */
  async function assertStandingRoom(caller: Caller, staged: number) {
    const active = (await storeFor(caller.kind).listStanding(caller.accountId)).filter((r) => r.state === 'active').length;
    assertRoom('standing', active + staged, limits.standing);
  }

  /**
   * Stores a prepared record unless one with its id exists (a re-run of the same turn);
   * answers the stored one. Refused at the cap, like `prepare`.
   */
  async function commit(caller: Caller, record: StandingRecord): Promise<StandingRecord> {
    const existing = await get(caller, record.id);
    if (existing) return existing;
    await assertStandingRoom(caller, 0);
    await storeFor(caller.kind).putStanding(record);
    if (record.trigger.kind === 'price') fresh.add(record.id);
    return record;
  }

  async function get(caller: Caller, id: string): Promise<StandingRecord | null> {
    return (await storeFor(caller.kind).listStanding(caller.accountId)).find((x) => x.id === id) ?? null;
  }

  /** Runs a pending fire once at a time; acting ones queue per account, off the caller's path. */
  function schedule(r: StandingRecord, n: number): Promise<void> {
    const fid = `${r.id}:${n}`;
    const running = inflight.get(fid);
    if (running) return running;
    const run = () => perform(r.account_id, r.id, n);
    const work = (r.action.kind === 'act' ? actQueue(r.account_id, run) : run()).finally(() => inflight.delete(fid));
    inflight.set(fid, work);
    if (r.action.kind === 'act') {
      // Failures leave the fire pending: the next beat tries again.
      const quiet = work.catch(() => undefined);
      background.add(quiet);
      void quiet.finally(() => background.delete(quiet)); // `quiet` never rejects: its catch is above
    }
    return work;
  }

  /** Disarms and records a fire in one write; answers the fire, or null if another pass got there first. */
  async function recordFire(r: StandingRecord, due: (x: StandingRecord) => boolean, next: Partial<StandingRecord>, why: string) {
    const now = clock.now();
    let fire: StandingFire | null = null;
    const updated = await store.updateStanding(r.account_id, r.id, (x) => {
      fire = null;
      if (x.state !== 'active' || !due(x)) return x;
      const f: StandingFire = { n: x.fired_count + 1, at: now, why, say: null };
      fire = f;
      return { ...x, ...next, fired_count: f.n, last_fired_at: now, pending: [...x.pending, f] };
    });
    return updated && fire ? { record: updated, fire: fire as StandingFire } : null;
  }

  /**
   * One evaluation pass. `snapshot` null skips price triggers; `only` limits them to those
   * ids and to intents created at or after `since` (no new block: only intents created since
   * the last pass can have changed state). The store's creation time covers intents made on
   * another server, whose `fresh` set this one never sees.
   */
  async function evaluate(snapshot: MarketSnapshot | null, only: ReadonlySet<string> | null, since = 0): Promise<number> {
    const now = clock.now();
    let fired = 0;
    const due: { record: StandingRecord; n: number }[] = [];
    // One indexed query: pending fires, daily times come, price triggers (all on a new block, else the new ones).
    const due_ = { now, pricesMoved: snapshot !== null && only === null, createdSince: snapshot ? since : Number.POSITIVE_INFINITY };
    for (const r of await store.dueStanding(due_)) {
      for (const p of r.pending) due.push({ record: r, n: p.n });
      if (r.state !== 'active') continue;
      if (r.trigger.kind === 'daily') {
        const trigger = r.trigger;
        if (r.next_at !== null && now >= r.next_at) {
          const got = await recordFire(
            r,
            (x) => x.next_at !== null && now >= x.next_at,
            { next_at: nextDailyAt(trigger.at, now) },
            `It is ${trigger.at} UTC.`,
          );
          if (got) {
            due.push({ record: got.record, n: got.fire.n });
            fired++;
          }
        }
        continue;
      }
      if (!snapshot || !wallet || (only && !only.has(r.id) && r.created_at < since)) continue;
      const t = r.trigger;
      const token = wallet.tokenList.tokens.find((x) => x.symbol === t.token);
      const price = token ? snapshot.prices.priceOf(token) : null;
      if (price === null) continue;
      const threshold = BigInt(t.threshold_usd);
      const crossed = t.op === 'below' ? price < threshold : price > threshold;
      const margin = (threshold * REARM_BPS) / 10_000n;
      const cleared = t.op === 'below' ? price >= threshold + margin : price <= threshold - margin;
      if (r.armed && crossed) {
        const why = `${t.token} is ${readableUsd(formatUsdPrice(price))}, ${t.op} your ${readableUsd(formatUsd(threshold))} line (block ${snapshot.block}).`;
        const got = await recordFire(r, (x) => x.armed, { armed: false }, why);
        if (got) {
          due.push({ record: got.record, n: got.fire.n });
          fired++;
        }
      } else if (!r.armed && cleared) {
        await store.updateStanding(r.account_id, r.id, (x) => ({ ...x, armed: true }));
      }
    }
    // Speaking is quick and done before the beat ends; acting is queued per account and not awaited.
    let failure: unknown = null;
    for (const { record, n } of due) {
      const work = schedule(record, n);
      if (record.action.kind !== 'act') await work.catch((e: unknown) => (failure ??= e));
    }
    if (failure) throw failure;
    return fired;
  }

  return {
    prepare,
    commit,
    get,
    /** Creates and stores at once. */
    async create(owner: StandingOwner, text: string, spec: StandingSpec, opts: { allowAct: boolean; id?: string; staged?: number }) {
      return commit(owner, await prepare(owner, text, spec, opts));
    },
    async list(caller: Caller) {
      return (await storeFor(caller.kind).listStanding(caller.accountId)).filter((r) => r.state === 'active');
    },
    async cancel(caller: Caller, id: string) {
      const r = (await storeFor(caller.kind).listStanding(caller.accountId)).find((x) => x.id === id && x.state === 'active');
      if (!r) throw notFound(`no standing intent ${id}`);
      await storeFor(caller.kind).updateStanding(caller.accountId, id, (x) => ({ ...x, state: 'cancelled' }));
      return { ...r, state: 'cancelled' as const };
    },
    /**
     * Evaluates new blocks, the clock, and intents created since the last pass (a trigger
     * already true at creation fires without waiting for a block); completes pending fires.
     * Answers how many fired. The server calls this on a short timer; passes never overlap.
     */
    tick(): Promise<number> {
      return beat('tick', async () => {
        const snapshot = wallet ? await wallet.views.market.snapshot().catch(() => null) : null;
        if (!snapshot) return evaluate(null, null);
        // Prices only change with blocks: an unchanged block re-checks only the new intents.
        const moved = snapshot.block !== lastBlock;
        const only = moved ? null : new Set(fresh);
        // A second of slack for clocks of different servers.
        const since = (lastPassAt ?? 0) - CLOCK_SLACK_MS;
        fresh.clear();
        lastBlock = snapshot.block;
        lastPassAt = clock.now();
        return evaluate(snapshot, only, since);
      });
    },
    /** Resolves when every acting fire started so far has finished (tests, shutdown). */
    async drain(): Promise<void> {
      while (background.size > 0) await Promise.all(background);
    },
  };
}
