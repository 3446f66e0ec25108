// Nonces per wallet without races, signed a batch at a time. Every transaction of a wallet is
// signed under the wallet's lock (the cluster's: held from the nonce read through signing to
// the broadcast), starting from the larger of what the chain has pending and what we handed
// out, so concurrent intents get consecutive nonces and none is used twice. With many servers
// on one database the chain's pending count already includes every other server's
// transactions when the next hold reads it; the local map only covers a node slow to count
// its own. A chain that lost its last blocks (the embedded devnet's anvil restarted from a
// state saved seconds before) counts lower than the map for good, and anvil queues a nonce
// past a gap without a word: every later transaction would wait behind the gap forever, so
// `forget()` drops the map and the next batch counts from the chain.
//
// Whatever asks for a nonce while a batch holds the lock waits and goes in the next batch,
// under one hold (lock-batches.ts): the nonce is read once, each claim is signed in arrival
// order, all their records are stored in ONE unit of work (StorePort.atomically: one synced
// commit on PostgreSQL, its statements pipelined, instead of a commit per intent — that commit
// was most of every intent's critical section), and only then is each broadcast, in nonce
// order. "Stored before broadcast" holds for every transaction; a batch only moves the commit
// of several records to one point before their broadcasts.
//
// A batch never leaves a gap in the nonces it stores or sends:
// - a claim that steps aside while signing (`sign` throws) takes no nonce;
// - the first claim whose intent moved on (its `ready` check answers false, or its `record`
//   null) ends what the batch keeps: the ones before it are committed and sent; the ones
//   behind it, signed at nonces that now follow a hole, are put back (`unrecord`) in the same
//   unit if they were stored, and sign again (SignAgain) in the next batch;
// - a failed write fails the unit of work as a whole and every claim, nothing sent (PostgreSQL
//   rolls it all back; the embedded store may keep some records, signed and unsent as after an
//   outage, for their next drive to send);
// - a broadcast the node refuses stops the sends there: the claims behind it, stored and never
//   sent, are put back and sign again; an outage fails them as it would have failed them one
//   by one (stored, not sent: their next drive sends the same bytes).
import type { Address, Hex } from 'viem';
import type { ChainReads } from '../../chain/chain-reads';
import { TransactionRejectedError } from '../../chain/errors';
import { type ClusterLocks, createLocalLocks } from '../../concurrency/cluster-locks';
import { type BatchEntry, createLockBatches } from '../../concurrency/lock-batches';
import type { StoreTx } from '../../store/store-port';

/** A claim signed in a batch that could not store or send it: nothing of it went out; sign it again. */
export class SignAgain extends Error {
  constructor() {
    super('signed at a nonce its batch could not use; nothing was sent');
  }
}

/** One transaction to sign under the wallet's lock, the allocator's side of an intent step. */
export type NonceClaim<S extends { raw: Hex }, T> = {
  /** Opens the unit of work the batch's records commit in (StorePort.atomically); `ready`, `record` and `unrecord` are handed it. */
  atomically: <X>(fn: (tx: StoreTx) => Promise<X>) => Promise<X>;
  /** Signs at `nonce`, in arrival order, outside the unit of work; throws to step aside (no nonce used). */
  sign: (nonce: number) => Promise<S>;
  /** Inside the batch's unit of work, before its record: false if the intent moved on (as `record` answering null). */
  ready?: (tx: StoreTx) => Promise<boolean>;
  /** Stores what was signed, in the batch's unit of work `tx`; null if the intent moved on. */
  record: (signed: S, nonce: number, tx: StoreTx) => Promise<T | null>;
  /** Puts the record back as before `record` (its transaction was never sent), in `tx`. */
  unrecord: (recorded: T, tx: StoreTx) => Promise<unknown>;
  /** Broadcasts, once the batch's records are committed. */
  send: (signed: S) => Promise<unknown>;
};

type AnyClaim = NonceClaim<{ raw: Hex }, unknown>;
type Entry = BatchEntry<{ address: Address; claim: AnyClaim }, unknown>;
type Signed = { entry: Entry; signed: { raw: Hex }; nonce: number };
type Recorded = Signed & { recorded: unknown };

export type NonceAllocator = ReturnType<typeof createNonceAllocator>;

export function createNonceAllocator(chain: ChainReads, locks: ClusterLocks = createLocalLocks()) {
  /** The next nonce per wallet, as far as this process knows (the chain may lag behind it). */
  const next = new Map<Address, number>();

  const batches = createLockBatches<{ address: Address; claim: AnyClaim }, unknown>(locks, async (batch) => {
    const { address } = (batch[0] as Entry).item;
    try {
      const after = await runBatch(address, batch);
      if (after === null) next.delete(address);
      else if (after !== undefined) next.set(address, after);
    } catch (e) {
      next.delete(address);
      throw e;
    }
  });

  /**
   * One batch under the wallet's lock. Answers the nonce after the last one it sent, null when
   * the chain must be asked again (something failed), undefined when it used none.
   */
  async function runBatch(address: Address, batch: Entry[]): Promise<number | null | undefined> {
    let nonce = Math.max(await chain.nonceOf(address, 'pending'), next.get(address) ?? 0);
    const signed: Signed[] = [];
    for (const entry of batch) {
      try {
        signed.push({ entry, signed: await entry.item.claim.sign(nonce), nonce });
        nonce++;
      } catch (e) {
        entry.reject(e);
      }
    }
    if (signed.length === 0) return undefined;

    const recorded: Recorded[] = [];
    /** The first claim whose intent moved on (nothing of it stored); the ones behind it sign again. */
    let stop: number | null = null;
    try {
      await (signed[0] as Signed).entry.item.claim.atomically(async (unit) => {
        // All at once: in a PostgreSQL transaction the statements of every claim are pipelined.
        const settled = await Promise.allSettled(
          signed.map(async ({ entry: { item }, signed: tx, nonce }) =>
            (await (item.claim.ready?.(unit) ?? true)) ? item.claim.record(tx, nonce, unit) : null,
          ),
        );
        // A failure fails the unit as a whole (thrown, so PostgreSQL commits none of it).
        const failed = settled.find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
        const rows = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value);
        const at = rows.indexOf(null);
        const kept = at === -1 ? rows.length : at;
        for (const [i, s] of signed.slice(0, kept).entries()) recorded.push({ ...s, recorded: rows[i] });
        if (at === -1) return;
        stop = at;
        // Stored behind one that was not: their nonces follow a hole, so they are put back
        // (never sent) before the unit commits.
        for (const [i, row] of rows.entries()) if (i > at && row !== null) await (signed[i] as Signed).entry.item.claim.unrecord(row, unit);
      });
    } catch (e) {
      for (const s of signed) s.entry.reject(e);
      return null;
    }
    if (stop !== null) {
      const at = stop as number;
      (signed[at] as Signed).entry.resolve(null);
      for (const s of signed.slice(at + 1)) s.entry.reject(new SignAgain());
    }

    for (const [i, s] of recorded.entries()) {
      try {
        await s.entry.item.claim.send(s.signed);
        s.entry.resolve(s.recorded);
      } catch (e) {
        s.entry.reject(e);
        const behind = recorded.slice(i + 1);
        if (e instanceof TransactionRejectedError) await putBack(behind);
        else for (const b of behind) b.entry.reject(e);
        return null;
      }
    }
    const last = recorded.at(-1);
    return last ? last.nonce + 1 : undefined;
  }

  /** Claims stored and never sent, behind one the node refused: as they were, to sign again. */
  async function putBack(claims: Recorded[]) {
    if (claims.length === 0) return;
    try {
      await (claims[0] as Recorded).entry.item.claim.atomically(async (unit) => {
        for (const c of claims) await c.entry.item.claim.unrecord(c.recorded, unit);
      });
      for (const c of claims) c.entry.reject(new SignAgain());
    } catch (e) {
      // Left stored and unsent: their nonces will go to others, so those bytes can never land.
      for (const c of claims) c.entry.reject(e);
    }
  }

  return {
    /** Counts every wallet's next nonce from the chain again (it lost transactions this process sent). */
    forget() {
      next.clear();
    },
    /**
     * Signs, stores and sends one transaction under the wallet's lock, in the next batch.
     * Answers what `record` stored once it is sent, or null when the intent moved on before
     * it was stored (nothing sent). Rejects with what `sign` threw (no nonce used), a store or
     * chain failure, or SignAgain.
     */
    claim<S extends { raw: Hex }, T>(address: Address, claim: NonceClaim<S, T>): Promise<T | null> {
      const key = address.toLowerCase() as Address;
      return batches(`nonce:${key}`, { address: key, claim: claim as unknown as AnyClaim }) as Promise<T | null>;
    },
  };
}
