// Idempotency-Key handling, transport-neutral. A first request claims the key and runs; a
// duplicate arriving meanwhile waits for it and gets its answer; a later duplicate gets the
// stored answer byte for byte; the same key with a different request is 422. Answers are
// kept 24 h, per account and key kind (a test key's in the overlay store, in memory only).
// A 5xx answer (or a 409 idempotency_in_progress) is not stored as final, so the client's
// retry runs again — actions below this layer are themselves durable and never execute twice.
// The slot stays claimed until `complete` or `abandon`: the transport must not abandon a
// request whose handler is still running (a client that hung up is no reason to let its
// retry run the action a second time).
// Across servers sharing a store, a first request also takes the store's claim on the key
// (an owner and a lease it renews while it runs): a twin on another server sees the claim,
// polls for the first one's answer and replays it; if the owner dies mid-request its lease
// runs out and the twin takes the claim over and runs. Twins on one server wait on each other
// in memory, at once.
import { randomUUID } from 'node:crypto';
import { KeyKind } from '@presence/protocol';
import type { Clock } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { Caller } from '../keys/caller';
import type { IdempotencyRecord } from '../store/documents';
import type { ByKind, StoreFor } from '../store/overlay-store';
import { type RequestFingerprint, sameRequest } from './fingerprint';
import type { IdempotencyLeases } from './idempotency-leases';

export const IDEMPOTENCY_KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600_000;
const WAIT_FOR_FIRST_MS = 60_000;

export type ClaimTiming = {
  /** How long a claim holds without renewal: how soon a dead server's key is free again. */
  leaseMs: number;
  /** How often a running request renews its claim (well inside the lease). */
  renewMs: number;
  /** How often a twin on another server looks for the first one's answer. */
  pollMs: number;
};
export const defaultClaimTiming: ClaimTiming = { leaseMs: 10_000, renewMs: 3_000, pollMs: 100 };

export type StoredAnswer = Pick<IdempotencyRecord, 'status' | 'headers' | 'body'>;

export type IdempotencyClaim =
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'proceed'; complete(answer: StoredAnswer): Promise<void>; abandon(): void };

/**
 * Whether an answer is final for its key. A 5xx is not (the retry runs again), and neither
 * is a 409 idempotency_in_progress: it says "ask again later" (an intent still executing),
 * and storing it would answer that for 24 h after the action finished.
 */
export function isFinalAnswer(answer: StoredAnswer): boolean {
  if (answer.status >= 500) return false;
  if (answer.status !== 409) return true;
  try {
    return (JSON.parse(answer.body) as { type?: unknown }).type !== 'idempotency_in_progress';
  } catch {
    return true;
  }
}

/** Throws 400 invalid_request for a key that is not 1-255 printable ASCII characters without spaces. */
export function checkIdempotencyKey(key: string) {
  if (!IDEMPOTENCY_KEY_SHAPE.test(key)) {
    throw new PresenceError('invalid_request', 'Idempotency-Key must be 1-255 printable ASCII characters without spaces');
  }
}

export type Idempotency = ReturnType<typeof createIdempotency>;

export function createIdempotency({
  storeFor,
  leasesFor,
  clock,
  owner = randomUUID(),
  timing = defaultClaimTiming,
}: {
  storeFor: StoreFor;
  /** Where each key kind's leases are held: the deployment's for live keys, memory for test keys. */
  leasesFor: ByKind<IdempotencyLeases>;
  clock: Clock;
  /** This server's name on the claims it takes (random per process). */
  owner?: string;
  timing?: ClaimTiming;
}) {
  type InFlight = { fingerprint: string; done: Promise<StoredAnswer | null> };
  const inFlight = new Map<string, InFlight>();

  const read = async (caller: Caller, key: string) => {
    const r = await storeFor(caller.kind).getIdempotencyRecord(caller.accountId, key);
    return r && r.created_at > clock.now() - IDEMPOTENCY_RETENTION_MS ? r : null;
  };

  const stillRunning = (key: string) =>
    new PresenceError('idempotency_in_progress', `a request with Idempotency-Key ${key} is still running; retry later`, { retryAfter: 5 });

  const mismatch = (key: string) =>
    new PresenceError('idempotency_mismatch', `Idempotency-Key ${key} was already used for a different request; use a new key`);

  /** `request` is a fingerprintRequest(); a bare string matches only itself (tests, own callers). */
  async function claim(caller: Caller, key: string, request: RequestFingerprint | string): Promise<IdempotencyClaim> {
    checkIdempotencyKey(key);
    const fp = typeof request === 'string' ? { value: request, legacy: request } : request;
    const fingerprint = fp.value;
    const slot = `${caller.kind}:${caller.accountId}:${key}`;
    for (;;) {
      const running = inFlight.get(slot);
      if (running) {
        if (!sameRequest(running.fingerprint, fp)) throw mismatch(key);
        let timer: NodeJS.Timeout | undefined;
        const answer = await Promise.race([
          running.done,
          new Promise<'timeout'>((r) => {
            timer = setTimeout(() => r('timeout'), WAIT_FOR_FIRST_MS);
          }),
        ]).finally(() => clearTimeout(timer));
        if (answer === 'timeout') {
          throw stillRunning(key);
        }
        if (answer) return { kind: 'replay', answer };
        continue; // the first attempt failed without a final answer: this one may run
      }
      // Register before awaiting the store so a concurrent twin sees us.
      let settle!: (a: StoredAnswer | null) => void;
      const entry: InFlight = { fingerprint, done: new Promise((r) => (settle = r)) };
      inFlight.set(slot, entry);
      let stored: IdempotencyRecord | null;
      try {
        stored = (await read(caller, key)) ?? (await claimInStore(caller, key, fp));
      } catch (e) {
        inFlight.delete(slot);
        settle(null);
        throw e;
      }
      if (stored) {
        inFlight.delete(slot);
        const same = sameRequest(stored.fingerprint, fp);
        settle(same ? stored : null);
        if (!same) throw mismatch(key);
        return { kind: 'replay', answer: stored };
      }
      const leases = leasesFor(caller.kind);
      // Renewed while the handler runs; a lease lost meanwhile (this server stalled past it)
      // changes nothing here: the action below is durable and the answer is stored either way.
      const renewal = setInterval(() => {
        leases.renew(caller.accountId, key, owner, clock.now() + timing.leaseMs).catch(() => undefined);
      }, timing.renewMs);
      renewal.unref();
      const release = () => {
        clearInterval(renewal);
        return leases.release(caller.accountId, key, owner);
      };
      let finished = false;
      return {
        kind: 'proceed',
        async complete(answer) {
          if (finished) return;
          finished = true;
          try {
            if (isFinalAnswer(answer)) {
              const record: IdempotencyRecord = { key, fingerprint, ...answer, created_at: clock.now() };
              await storeFor(caller.kind).putIdempotencyRecord(caller.accountId, record);
              settle(answer);
            } else settle(null);
          } catch (e) {
            // Not stored, so not final: whoever waits runs again rather than waiting forever.
            settle(null);
            throw e;
          } finally {
            inFlight.delete(slot);
            // After the answer is stored: a twin elsewhere finds the answer, never a free key.
            await release().catch(() => undefined);
          }
        },
        abandon() {
          if (finished) return;
          finished = true;
          inFlight.delete(slot);
          settle(null);
          release().catch(() => undefined);
        },
      };
    }
  }

  /**
   * Takes the store's claim on the key (answers null), or waits for the server holding it and
   * answers its stored answer. A holder that stops renewing is taken over once its lease ends.
   */
  async function claimInStore(caller: Caller, key: string, fp: RequestFingerprint): Promise<IdempotencyRecord | null> {
    const leases = leasesFor(caller.kind);
    const giveUpAt = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const now = clock.now();
      const held = await leases.claim(caller.accountId, key, { owner, fingerprint: fp.value, expires_at: now + timing.leaseMs }, now);
      if (held.owner === owner) {
        // Read again once the claim is ours: the first may have finished on another server
        // after our read and before our claim (it stores its answer, then releases the key).
        const stored = await read(caller, key);
        if (!stored) return null;
        await leases.release(caller.accountId, key, owner).catch(() => undefined);
        return stored;
      }
      if (!sameRequest(held.fingerprint, fp)) throw mismatch(key);
      if (Date.now() >= giveUpAt) {
        throw stillRunning(key);
      }
      await new Promise((r) => setTimeout(r, timing.pollMs));
      const stored = await read(caller, key);
      if (stored) return stored;
    }
  }

  return {
    claim,
    async prune() {
      const cutoff = clock.now() - IDEMPOTENCY_RETENTION_MS;
      let dropped = 0;
      for (const kind of KeyKind.options) {
        dropped += await storeFor(kind).pruneIdempotency(cutoff);
        // Leases that ended that long ago belong to servers that are gone.
        await leasesFor(kind).prune(cutoff);
      }
      return dropped;
    },
  };
}
