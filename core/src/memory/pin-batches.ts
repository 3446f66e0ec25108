// Pins of one account that arrive while its previous pins are being written are written
// together, as one memory change: one transaction on PostgreSQL, where one account's writes
// otherwise queue on its counter row for a whole transaction each, and one sync on the
// embedded store. Each pin is decided in arrival order on what the pins before it left (the
// same key pinned twice: the later note wins, as if one after the other), and one refused —
// the memory full — refuses only itself. Not for a caller inside a unit of work: the batch
// commits in a unit of its own, and would wait for the account's row that caller holds.
//
// A pin bringing again the note this server last answered for that key (a client retrying, a
// bot re-pinning what it holds) most likely changes nothing. Such pins are decided on one
// plain read (`peekMemory`: one statement, one round trip on PostgreSQL, where a unit of work
// costs two even when it writes nothing), batched like the writes but apart from them: a read
// that writes nothing need not wait for the account's write under way (it orders before it,
// which nobody can tell: that write has not answered yet). Only if something would change do
// they go on to the write batches, which decide again under the locks. The guess picks the
// path, never the answer: a wrong one costs one read, and a pin with a new note never takes
// that path, so a writing pin still commits once.
import { createLocalLocks } from '../concurrency/cluster-locks';
import { type BatchEntry, createLockBatches } from '../concurrency/lock-batches';
import { PresenceError } from '../errors/presence-error';
import type { Caller } from '../keys/caller';
import type { MemoryEntry } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { MemoryPeek, StoreTx } from '../store/store-port';

export type PinAnswer = { key: string; tier: 'pinned'; note: string; changed: boolean };
type Decide = (current: MemoryPeek, key: string, note: string | undefined, now: number) => { next: MemoryEntry; changed: boolean };
type Outcome = { answer: PinAnswer } | { refused: PresenceError };

/** How many (account, key) notes a server remembers for that guess; the oldest go first. */
const KNOWN_NOTES = 4_096;

export function createPinBatches({
  storeFor,
  now,
  decide,
  announce,
}: {
  storeFor: StoreFor;
  now: () => number;
  /** One pin's decision on the entries and count it is given (throws a PresenceError to refuse). */
  decide: Decide;
  /** Appends the `memory` event of a pin that changed something, in the batch's unit of work `tx`. */
  announce: (tx: StoreTx, caller: Caller, key: string) => Promise<unknown>;
}) {
  type Ask = { caller: Caller; key: string; note: string | undefined };
  type Batch = BatchEntry<Ask, PinAnswer>[];
  const known = new Map<string, string>();
  const noteKey = (ask: Ask) => `${ask.caller.kind}:${ask.caller.accountId}\0${ask.key}`;
  const remember = (ask: Ask, note: string) => {
    const k = noteKey(ask);
    known.delete(k);
    known.set(k, note);
    if (known.size > KNOWN_NOTES) known.delete(known.keys().next().value as string);
  };
  const likelyRepeat = (ask: Ask) => {
    const was = known.get(noteKey(ask));
    return was !== undefined && (ask.note === undefined || ask.note === was);
  };

  /** Each pin decided in turn on `current` and what the pins before it left (pure in `current`). */
  const decideAll = (batch: readonly { item: Ask }[], current: MemoryPeek, at: number) => {
    const found = new Map(current.found);
    let count = current.count;
    const put = new Map<string, MemoryEntry>();
    const out: Outcome[] = batch.map(({ item }) => {
      try {
        const d = decide({ found, count }, item.key, item.note, at);
        if (d.changed) {
          if (!found.has(item.key)) count++;
          found.set(item.key, d.next);
          put.set(item.key, d.next);
        }
        return { answer: { key: item.key, tier: 'pinned', note: d.next.note, changed: d.changed } };
      } catch (e) {
        if (e instanceof PresenceError) return { refused: e };
        throw e;
      }
    });
    return { put: [...put.values()], out };
  };

  const settle = (batch: Batch, outcomes: Outcome[]) => {
    for (const [i, o] of outcomes.entries()) {
      const entry = batch[i] as Batch[number];
      if ('answer' in o) {
        remember(entry.item, o.answer.note);
        entry.resolve(o.answer);
      } else entry.reject(o.refused);
    }
  };

  const batches = createLockBatches<Ask, PinAnswer>(createLocalLocks(), async (batch) => {
    const { caller } = (batch[0] as Batch[number]).item;
    const store = storeFor(caller.kind);
    const at = now();
    const keys = [...new Set(batch.map((b) => b.item.key))];
    const outcomes = await store.atomically(async (tx) => {
      const decided = await tx.changeMemory(
        caller.accountId,
        keys,
        (current) => {
          const { put, out } = decideAll(batch, current, at);
          // Pins that change nothing write nothing.
          return put.length > 0 ? { put, result: out } : { result: out };
        },
        { likelyWrites: true },
      );
      // Sent together: in a transaction the appends are pipelined, and run (and number) in this order.
      await Promise.all(
        decided.map((o, i) => ('answer' in o && o.answer.changed ? announce(tx, caller, (batch[i] as Batch[number]).item.key) : null)),
      );
      return decided;
    });
    settle(batch, outcomes);
  });
  /** Likely repeats, on one read: answered if none changes anything, else each goes on to `batches` (null). */
  const repeats = createLockBatches<Ask, PinAnswer | null>(createLocalLocks(), async (batch) => {
    const { caller } = (batch[0] as (typeof batch)[number]).item;
    const keys = [...new Set(batch.map((b) => b.item.key))];
    const { out } = decideAll(batch, await storeFor(caller.kind).peekMemory(caller.accountId, keys), now());
    const unchanged = out.every((o) => 'answer' in o && !o.answer.changed);
    for (const [i, o] of out.entries()) (batch[i] as (typeof batch)[number]).resolve(unchanged && 'answer' in o ? o.answer : null);
  });

  return async (caller: Caller, key: string, note: string | undefined): Promise<PinAnswer> => {
    const ask = { caller, key, note };
    const name = `${caller.kind}:${caller.accountId}`;
    if (likelyRepeat(ask)) {
      const answer = await repeats(name, ask);
      if (answer) return answer;
    }
    return batches(name, ask);
  };
}
