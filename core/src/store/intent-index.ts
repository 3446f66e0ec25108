// One account's intent records in memory, with the indexes every intent's lookups use: by
// Idempotency-Key (asked twice per submission), by confirm id (each approval), and the
// running spend the daily cap is checked against on every intent. Whatever
// the account's history (or the day's activity), each lookup costs about the same. The
// store owns durability; this owns only the views.
import type { IntentRecord, IntentState } from './documents';
import type { IntentFilter } from './intents-port';

export type IntentIndex = ReturnType<typeof createIntentIndex>;

/** What has left the wallet or is leaving it: counted against daily_cap. */
const SPENDING: readonly IntentState[] = ['executing', 'signed', 'done'];
/** When a spending record spent: when it executed, or (still in flight) its last change. */
const spentAt = (r: IntentRecord) => r.executed_at ?? r.updated_at;

type Spend = { id: string; at: number; value: bigint };

/** The first position in `xs` (sorted by `at`) whose `at` is at least `at`. */
function firstAtOrAfter(xs: readonly { at: number }[], at: number) {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] as { at: number }).at < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts in `at` order (equal times keep arrival order); answers the position. */
function insertByTime<T extends { at: number }>(xs: T[], x: T) {
  const i = firstAtOrAfter(xs, x.at + 1);
  if (i === xs.length) xs.push(x);
  else xs.splice(i, 0, x);
  return i;
}

export function createIntentIndex() {
  const byId = new Map<string, IntentRecord>();
  const idByIdempotencyKey = new Map<string, string>();
  const idByConfirmId = new Map<string, string>();
  // Spend: records in flight (few) by id; done ones by time with prefix sums (done is final,
  // and they arrive in time order), so "spent since T" is a binary search and a subtraction.
  const inFlight = new Map<string, Spend>();
  /** Ids of the records waiting for approval: what the cap on holds counts. */
  const held = new Set<string>();
  const done: Spend[] = [];
  let prefix: bigint[] = [0n];

  const rebuildPrefix = () => {
    prefix = [0n];
    for (const x of done) prefix.push((prefix.at(-1) as bigint) + x.value);
  };
  const addDone = (x: Spend) => {
    const i = insertByTime(done, x);
    if (i === done.length - 1) prefix.push((prefix[i] as bigint) + x.value);
    else rebuildPrefix();
  };
  const respend = (prev: IntentRecord | undefined, r: IntentRecord) => {
    inFlight.delete(r.id);
    if (prev?.state === 'done') {
      if (r.state === 'done') return; // a rewrite of a done record changes nothing spent
      done.splice(
        done.findIndex((x) => x.id === r.id),
        1,
      );
      rebuildPrefix();
    }
    if (!SPENDING.includes(r.state)) return;
    const x = { id: r.id, at: spentAt(r), value: BigInt(r.value_usd) };
    if (r.state === 'done') addDone(x);
    else inFlight.set(r.id, x);
  };

  const reindex = (index: Map<string, string>, id: string, before: string | null | undefined, after: string | null) => {
    if (before && before !== after && index.get(before) === id) index.delete(before);
    if (after) index.set(after, id);
  };

  const lookup = (index: Map<string, string>, key: string) => {
    const id = index.get(key);
    return id === undefined ? null : (byId.get(id) ?? null);
  };

  return {
    byId: byId as ReadonlyMap<string, IntentRecord>,
    /** Adds a record or replaces its previous version. */
    put(r: IntentRecord) {
      const prev = byId.get(r.id);
      byId.set(r.id, r);
      reindex(idByIdempotencyKey, r.id, prev?.idempotency_key, r.idempotency_key);
      reindex(idByConfirmId, r.id, prev?.confirm_id, r.confirm_id);
      respend(prev, r);
      if (r.state === 'held') held.add(r.id);
      else held.delete(r.id);
    },
    /** How many records are held, past their time or not. */
    heldCount: () => held.size,
    byIdempotencyKey: (key: string) => lookup(idByIdempotencyKey, key),
    byConfirmId: (confirmId: string) => lookup(idByConfirmId, confirmId),
    /** The records matching `filter`, in the order they were created. */
    list({ states, confirmable, last }: IntentFilter = {}): IntentRecord[] {
      const found = [...byId.values()].filter((r) => (!states || states.includes(r.state)) && (!confirmable || r.confirm_id !== null));
      return last === undefined ? found : found.slice(-last);
    },
    /** USD (1e18) of the records executing, signed or done that spent at or after `since`. */
    spentSince(since: number): bigint {
      let sum = (prefix[done.length] as bigint) - (prefix[firstAtOrAfter(done, since)] as bigint);
      for (const x of inFlight.values()) if (x.at >= since) sum += x.value;
      return sum;
    },
  };
}
