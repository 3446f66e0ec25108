// Pins of one account that arrive while its previous pins are being written are written
// together, as one memory change: one transaction on PostgreSQL, where one account's writes
// otherwise queue on its counter row for a whole transaction each, and one sync on the
// embedded store. Each pin is decided in arrival order on what the pins before it left (the
// same key pinned twice: the later note wins, as if one after the other), and one refused —
// the memory full — refuses only itself. Never from inside a unit of work: the batch runs in
// its first caller's, and would commit or roll back with it.
import { createLocalLocks } from '../concurrency/cluster-locks';
import { createLockBatches } from '../concurrency/lock-batches';
import { PresenceError } from '../errors/presence-error';
import type { Caller } from '../keys/caller';
import type { MemoryEntry } from '../store/documents';
import type { StoreFor } from '../store/overlay-store';
import type { MemoryPeek } from '../store/store-port';

export type PinAnswer = { key: string; tier: 'pinned'; note: string; changed: boolean };
type Decide = (current: MemoryPeek, key: string, note: string | undefined, now: number) => { next: MemoryEntry; changed: boolean };
type Outcome = { answer: PinAnswer } | { refused: PresenceError };

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
  /** Appends the `memory` event of a pin that changed something (in the batch's unit of work). */
  announce: (caller: Caller, key: string) => Promise<unknown>;
}) {
  type Ask = { caller: Caller; key: string; note: string | undefined };
  const batches = createLockBatches<Ask, PinAnswer>(createLocalLocks(), async (batch) => {
    const { caller } = (batch[0] as (typeof batch)[number]).item;
    const store = storeFor(caller.kind);
    const at = now();
    const keys = [...new Set(batch.map((b) => b.item.key))];
    const outcomes = await store.atomically(async () => {
      const decided = await store.changeMemory(caller.accountId, keys, (current) => {
        // Pure in `current` (PostgreSQL decides again once it holds the locks).
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
        // Pins that change nothing write nothing.
        return put.size > 0 ? { put: [...put.values()], result: out } : { result: out };
      });
      // Sent together: in a transaction the appends are pipelined, and run (and number) in this order.
      await Promise.all(
        decided.map((o, i) => ('answer' in o && o.answer.changed ? announce(caller, (batch[i] as (typeof batch)[number]).item.key) : null)),
      );
      return decided;
    });
    for (const [i, o] of outcomes.entries()) {
      const entry = batch[i] as (typeof batch)[number];
      if ('answer' in o) entry.resolve(o.answer);
      else entry.reject(o.refused);
    }
  });
  return (caller: Caller, key: string, note: string | undefined): Promise<PinAnswer> =>
    batches(`${caller.kind}:${caller.accountId}`, { caller, key, note });
}
