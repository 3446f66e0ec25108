// Standing intents: stored durably, evaluated on every new block and on the clock. A price
// trigger fires once per crossing: it disarms when it fires and re-arms only after the price
// has cleared the threshold by a 1% margin, so a price hovering at the line does not repeat
// every block. Evaluation reads one market snapshot per block for all intents of all
// accounts (one price read per pool per block, not per intent). Firing speaks through the
// thread and a `message` event with cause standing:<id>; acting goes through the same
// intent pipeline and policy as everything else.
import { formatUsd, formatUsdPrice } from '../chain/amounts';
import type { MarketSnapshot } from '../chain/market';
import { resolveToken } from '../chain/token-list';
import type { Clock } from '../clock/clock';
import type { Thread } from '../conversation/thread';
import { notFound, PresenceError } from '../errors/presence-error';
import { randomBase62 } from '../keys/key-secret';
import type { KeyKind } from '../schemas/common';
import type { StandingRecord } from '../store/documents';
import type { StorePort } from '../store/store-port';
import type { WalletDomain } from '../wallet/wallet-domain';
import type { StandingSpec } from './standing-parser';

const DAY_MS = 86_400_000;
/** Re-arm margin: the price must clear the threshold by 1% (100 bps). */
const REARM_BPS = 100n;

export function nextDailyAt(at: string, now: number): number {
  const [h, m] = at.split(':').map(Number) as [number, number];
  const today = Math.floor(now / DAY_MS) * DAY_MS + (h * 60 + m) * 60_000;
  return today > now ? today : today + DAY_MS;
}

export type StandingService = ReturnType<typeof createStandingService>;

export function createStandingService({
  store,
  clock,
  thread,
  wallet,
}: {
  store: StorePort;
  clock: Clock;
  thread: Thread;
  wallet: WalletDomain | null;
}) {
  async function create(accountId: string, mode: KeyKind, text: string, spec: StandingSpec, mayAct: boolean): Promise<StandingRecord> {
    if (spec.action.kind === 'act' && !mayAct) {
      throw new PresenceError('scope', 'a standing intent that acts must be created by a key holding wallet:act', {
        extra: { missing: ['wallet:act'] },
      });
    }
    if (spec.trigger.kind === 'price') {
      if (!wallet) throw new PresenceError('chain_unavailable', 'no chain is configured, so prices cannot be watched');
      try {
        spec.trigger.token = resolveToken(wallet.tokenList, spec.trigger.token).symbol;
      } catch {
        throw new PresenceError('intent_unresolved', `I don't know the token "${spec.trigger.token}"`);
      }
    }
    const now = clock.now();
    const record: StandingRecord = {
      id: `st_${randomBase62(12)}`,
      account_id: accountId,
      text,
      trigger: spec.trigger,
      action: spec.action,
      may_act: mayAct,
      armed: true,
      next_at: spec.trigger.kind === 'daily' ? nextDailyAt(spec.trigger.at, now) : null,
      fired_count: 0,
      last_fired_at: null,
      state: 'active',
      created_at: now,
    };
    // A test key's standing intents are answered but not kept.
    if (mode === 'live') await store.putStanding(record);
    return record;
  }

  async function fire(r: StandingRecord, why: string) {
    const cause = `standing:${r.id}`;
    const w = wallet;
    if (r.action.kind === 'notify') return thread.say(r.account_id, 'live', why, cause);
    if (r.action.kind === 'balance') {
      if (!w) return thread.say(r.account_id, 'live', 'It is time for your balance, but no chain is configured.', cause);
      const v = await w.view(r.account_id, 'live');
      const lines = v.balances.filter((b) => !/^0 /.test(b.amount)).map((b) => `${b.amount}${b.value_usd ? ` (${b.value_usd})` : ''}`);
      return thread.say(
        r.account_id,
        'live',
        `Your daily balance: ${lines.join(', ')}; total ${v.total_usd} at block ${v.as_of_block}.`,
        cause,
      );
    }
    if (!w) return;
    try {
      const result = await w.pipeline.submit({
        accountId: r.account_id,
        mode: 'live',
        text: r.action.intent,
        source: 'standing',
        // One action per firing, even if evaluation is retried after a crash.
        idempotencyKey: `standing:${r.id}:${r.fired_count}`,
        context: { standing_id: r.id },
      });
      const said =
        result.status === 'done'
          ? `${why} As you asked, I did it: ${result.summary}. Transaction ${result.tx} in block ${result.block}.`
          : `${why} As you asked, I prepared it, but it needs your approval: ${result.summary}. Confirm ${result.confirm_id} before ${result.expires_at}.`;
      await thread.say(r.account_id, 'live', said, cause);
    } catch (e) {
      const detail = e instanceof PresenceError ? e.detail : 'it failed';
      await thread.say(r.account_id, 'live', `${why} I tried to ${r.action.intent}, but could not: ${detail}`, cause);
    }
  }

  /** One evaluation pass; the snapshot is shared by every intent of every account. */
  async function evaluate(snapshot: MarketSnapshot | null): Promise<number> {
    const now = clock.now();
    let fired = 0;
    for (const r of await store.listStanding()) {
      if (r.state !== 'active') continue;
      if (r.trigger.kind === 'daily') {
        if (r.next_at !== null && now >= r.next_at) {
          const trigger = r.trigger;
          const updated = await store.updateStanding(r.account_id, r.id, (x) => ({
            ...x,
            next_at: nextDailyAt(trigger.at, now),
            fired_count: x.fired_count + 1,
            last_fired_at: now,
          }));
          if (updated) {
            await fire(r, `It is ${trigger.at} UTC.`);
            fired++;
          }
        }
        continue;
      }
      if (!snapshot || !wallet) continue;
      const t = r.trigger;
      const token = wallet.tokenList.tokens.find((x) => x.symbol === t.token);
      const price = token ? snapshot.prices.priceOf(token) : null;
      if (price === null) continue;
      const threshold = BigInt(t.threshold_usd);
      const crossed = t.op === 'below' ? price < threshold : price > threshold;
      const margin = (threshold * REARM_BPS) / 10_000n;
      const cleared = t.op === 'below' ? price >= threshold + margin : price <= threshold - margin;
      if (r.armed && crossed) {
        const updated = await store.updateStanding(r.account_id, r.id, (x) =>
          x.armed ? { ...x, armed: false, fired_count: x.fired_count + 1, last_fired_at: now } : x,
        );
        if (updated && updated.fired_count === r.fired_count + 1) {
          await fire(r, `${t.token} is ${formatUsdPrice(price)}, ${t.op} your ${formatUsd(threshold)} line (block ${snapshot.block}).`);
          fired++;
        }
      } else if (!r.armed && cleared) {
        await store.updateStanding(r.account_id, r.id, (x) => ({ ...x, armed: true }));
      }
    }
    return fired;
  }

  let lastBlock: bigint | null = null;

  return {
    create,
    async list(accountId: string) {
      return (await store.listStanding(accountId)).filter((r) => r.state === 'active');
    },
    async cancel(accountId: string, mode: KeyKind, id: string) {
      const r = (await store.listStanding(accountId)).find((x) => x.id === id && x.state === 'active');
      if (!r) throw notFound(`no standing intent ${id}`);
      if (mode === 'live') await store.updateStanding(accountId, id, (x) => ({ ...x, state: 'cancelled' }));
      return { ...r, state: 'cancelled' as const };
    },
    evaluate,
    /** Evaluates when the block moved or on the clock; the server calls this on a short timer. */
    async tick(): Promise<number> {
      let snapshot = wallet ? await wallet.views.market.snapshot().catch(() => null) : null;
      // Prices only change with blocks: skip price triggers until a new one arrives.
      if (snapshot && snapshot.block === lastBlock) snapshot = null;
      else if (snapshot) lastBlock = snapshot.block;
      return evaluate(snapshot);
    },
  };
}
