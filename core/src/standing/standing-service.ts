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
import type { Scope } from '@presence/protocol';
import { formatUsd, formatUsdPrice, parseUnits, USD_DECIMALS } from '../chain/amounts';
import type { MarketSnapshot } from '../chain/market';
import { resolveToken, type TokenList } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import { createKeyedLock } from '../concurrency/keyed-lock';
import { notFound, PresenceError } from '../errors/presence-error';
import { type ParsedIntent, parseIntent } from '../intents/intent-parser';
import type { WalletDomain } from '../intents/wallet-domain';
import { accountCaller, type Caller } from '../keys/caller';
import { randomBase62 } from '../keys/key-secret';
import { turnRefusal } from '../keys/scopes';
import { type AccountLimits, accountLimits, assertRoom } from '../limits/account-limits';
import { actionOutcome, holdings, unknownToken } from '../replies/replies';
import type { StandingFire, StandingRecord } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { StorePort } from '../store/store-port';
import type { Thread } from '../thread/thread';
import type { StandingSpec } from './standing-parser';
import { standingNeed } from './standing-scopes';

const DAY_MS = 86_400_000;
/** Re-arm margin: the price must clear the threshold by 1% (100 bps). */
const REARM_BPS = 100n;
/**
 * How long an acting fire keeps trying to start its action after a server-side failure
 * (chain down, store error) before it gives up and says so: acting long after the crossing,
 * at a price the owner never saw, is worse than not acting.
 */
export const ACT_RETRY_WINDOW_MS = 10 * 60_000;

export function nextDailyAt(at: string, now: number): number {
  const [h, m] = at.split(':').map(Number) as [number, number];
  const today = Math.floor(now / DAY_MS) * DAY_MS + (h * 60 + m) * 60_000;
  return today > now ? today : today + DAY_MS;
}

/** Who creates a standing intent: the authority an acting one keeps re-checking when it fires. */
export type StandingOwner = Caller & { keyId: string | null; scopes: readonly Scope[] };

/** The intent a fire submits is keyed by the fire, so completing it again never acts twice. */
export const fireIntentKey = (standingId: string, n: number) => `standing:${standingId}:fire:${n}`;

/**
 * An acting standing intent's action, checked as far as it can be without a quote: its
 * tokens are listed and its amount fits their decimals and is not zero. (Balances and the
 * policy are checked when it fires.)
 */
function checkAction(parsed: ParsedIntent, list: TokenList): void {
  const decimalsOf = (symbol: string) => {
    if (symbol.toUpperCase() === 'ETH') return 18;
    try {
      return resolveToken(list, symbol).decimals;
    } catch {
      throw new PresenceError('intent_unresolved', unknownToken(symbol, list));
    }
  };
  const [amount, decimals, others] =
    parsed.kind === 'swap'
      ? [parsed.amount, decimalsOf(parsed.tokenIn), [parsed.tokenOut]]
      : parsed.kind === 'buy'
        ? [parsed.usd, USD_DECIMALS, [parsed.token, parsed.payWith]]
        : parsed.kind === 'sell'
          ? [parsed.amount, decimalsOf(parsed.token), [parsed.for]]
          : parsed.kind === 'send'
            ? [parsed.amount, decimalsOf(parsed.token), []]
            : [parsed.amount, 18, []];
  for (const s of others) if (s) decimalsOf(s);
  let value: bigint;
  try {
    value = parseUnits(amount, decimals);
  } catch {
    throw new PresenceError('intent_unresolved', `"${amount}" has more decimal places than that token has (${decimals})`);
  }
  if (value === 0n) throw new PresenceError('intent_unresolved', 'the amount must be more than zero');
}

/** A failure worth another try on the next beat (the fire stays pending). */
class RetryLater extends Error {}

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

  /**
   * Checks a standing intent and builds its record without storing it (see `commit`). It
   * needs the scopes of what it will do when it fires (standing-scopes.ts): one that acts
   * needs the turn to allow acting and the key to hold wallet:act, otherwise a message could
   * arrange an action that later runs unasked. The tokens it names must be listed now, not
   * found missing when it fires. At the cap it is refused here already (409, limit
   * standing_per_account), so a turn can say so; `staged` counts the ones the caller has
   * prepared but not yet committed.
   */
  async function prepare(
    owner: StandingOwner,
    text: string,
    spec: StandingSpec,
    opts: { allowAct: boolean; id?: string; staged?: number },
  ): Promise<StandingRecord> {
    const refused = turnRefusal({ scopes: owner.scopes, allowAct: opts.allowAct }, standingNeed(spec));
    if (refused) throw refused;
    await assertStandingRoom(owner, opts.staged ?? 0);
    const trigger = { ...spec.trigger };
    if (trigger.kind === 'price') {
      if (!wallet) throw new PresenceError('chain_unavailable', 'no chain is configured, so prices cannot be watched');
      try {
        trigger.token = resolveToken(wallet.tokenList, trigger.token).symbol;
      } catch {
        throw new PresenceError('intent_unresolved', unknownToken(trigger.token, wallet.tokenList));
      }
    }
    if (spec.action.kind === 'act' && wallet) checkAction(parseIntent(spec.action.intent), wallet.tokenList);
    const mayAct = owner.scopes.includes('wallet:act');
    const now = clock.now();
    return {
      id: opts.id ?? `st_${randomBase62(12)}`,
      account_id: owner.accountId,
      text,
      trigger,
      action: spec.action,
      may_act: mayAct && opts.allowAct,
      armed: true,
      next_at: trigger.kind === 'daily' ? nextDailyAt(trigger.at, now) : null,
      fired_count: 0,
      last_fired_at: null,
      state: 'active',
      created_at: now,
      created_by: owner.keyId,
      pending: [],
    };
  }

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

  /** Why an acting intent may no longer act, or null when its creator still may. */
  async function authorityProblem(r: StandingRecord): Promise<string | null> {
    if (!r.may_act || !r.created_by) return 'it was not created with the authority to act; create it again from a message with allow_act';
    const k = await store.getKey(r.created_by);
    if (!k || k.account_id !== r.account_id || k.state === 'revoked') return 'the key that created it has been revoked';
    if (k.kind !== 'live' || !k.scopes.includes('wallet:act')) return 'the key that created it no longer holds wallet:act';
    return null;
  }

  /** Performs a fire's action (if any) and answers what the presence says about it. */
  async function compose(r: StandingRecord, f: StandingFire): Promise<string> {
    const w = wallet;
    if (r.action.kind === 'notify') return f.why;
    if (r.action.kind === 'balance') {
      if (!w) return 'It is time for your balance, but no chain is configured.';
      const v = await w.view(accountCaller(r.account_id)).catch((e: unknown) => {
        throw new RetryLater(e instanceof Error ? e.message : String(e));
      });
      return `Your daily balance: ${holdings(v)}.`;
    }
    const intent = r.action.intent;
    if (!w) return `${f.why} I did not ${intent}: no chain is configured.`;
    const key = fireIntentKey(r.id, f.n);
    // An intent this fire already submitted is reported whatever happened since (a cancel, a revoke).
    const started = (await store.findIntentByIdempotencyKey(r.account_id, key)) !== null;
    if (!started) {
      if (r.state !== 'active') return `${f.why} I did not ${intent}: the standing intent was cancelled first.`;
      const problem = await authorityProblem(r);
      if (problem) return `${f.why} I did not ${intent}: ${problem}.`;
    }
    try {
      const result = await w.pipeline.submit({
        caller: accountCaller(r.account_id),
        text: intent,
        source: 'standing',
        idempotencyKey: key,
        context: { standing_id: r.id, fire: f.n },
      });
      return `${f.why} ${actionOutcome(result)}`;
    } catch (e) {
      const final = e instanceof PresenceError && e.status < 500;
      // One already under way (e.g. signed, its receipt not yet seen) is followed until it ends.
      const underWay = !final && (started || (await store.findIntentByIdempotencyKey(r.account_id, key)) !== null);
      if (!final && (underWay || clock.now() - f.at < ACT_RETRY_WINDOW_MS)) {
        throw new RetryLater(e instanceof Error ? e.message : String(e));
      }
      const detail = e instanceof PresenceError ? e.detail : 'it failed';
      return `${f.why} I tried to ${intent}, but could not: ${detail}`;
    }
  }

  /** Completes fire `n` of a standing intent; a no-op once it is done. */
  async function perform(accountId: string, id: string, n: number): Promise<void> {
    const r = (await store.listStanding(accountId)).find((x) => x.id === id);
    const f = r?.pending.find((p) => p.n === n);
    if (!r || !f) return;
    let say = f.say;
    if (!say) {
      const text = await compose(r, f);
      say = { text, ...(await thread.marks(accountId)) };
      const fixed = say;
      await store.updateStanding(accountId, id, (x) => ({ ...x, pending: x.pending.map((p) => (p.n === n ? { ...p, say: fixed } : p)) }));
    }
    // Every standing intent watches a price or the wallet, or acts: its words are wallet:read's to see.
    await thread.sayOnce(accountId, say.text, `standing:${id}`, say, ['wallet:read']);
    await store.updateStanding(accountId, id, (x) => ({ ...x, pending: x.pending.filter((p) => p.n !== n) }));
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
        const why = `${t.token} is ${formatUsdPrice(price)}, ${t.op} your ${formatUsd(threshold)} line (block ${snapshot.block}).`;
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
