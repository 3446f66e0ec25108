// Idempotency claims over the real store: answers expire after 24 h on the driven clock
// (and upkeep drops them from disk), and "still in progress" is never a final answer.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../clock/clock';
import { createKeystore } from '../keystore/keystore';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import type { StorePort } from '../store/store-port';
import { fingerprintRequest } from './fingerprint';
import { createIdempotency, IDEMPOTENCY_RETENTION_MS, type IdempotencyClaim, isFinalAnswer } from './idempotency';
import { createMemoryLeases, type IdempotencyLeases } from './idempotency-leases';

const ok = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
const inProgress = {
  status: 409,
  headers: { 'content-type': 'application/problem+json' },
  body: JSON.stringify({ type: 'idempotency_in_progress', title: 'in progress', status: 409, detail: 'retry shortly' }),
};
const proceed = (c: IdempotencyClaim) => {
  if (c.kind !== 'proceed') throw new Error(`expected to proceed, got ${c.kind}`);
  return c;
};

describe('idempotency', () => {
  let dir: string;
  let store: StorePort;
  let clock: ManualClock;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'idem-'));
    store = await createLowdbStore({ dataDir: dir, keystore: createKeystore(randomBytes(32)) });
    await store.createAccount({
      id: 'a',
      name: 'a',
      created_at: new Date(0).toISOString(),
      presence: { name: 'p', model: 'local', preferences: {} },
      policy: null,
    });
    clock = createManualClock();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('replays for 24 h, then runs again; upkeep drops the expired answer from disk', async () => {
    const idem = createIdempotency({ storeFor: () => store, leasesFor: () => createMemoryLeases(), clock });
    await proceed(await idem.claim({ accountId: 'a', kind: 'live' }, 'k1', 'fp')).complete(ok);
    clock.advance(IDEMPOTENCY_RETENTION_MS - 1);
    expect(await idem.claim({ accountId: 'a', kind: 'live' }, 'k1', 'fp')).toEqual({ kind: 'replay', answer: expect.objectContaining(ok) });
    clock.advance(1);
    const again = proceed(await idem.claim({ accountId: 'a', kind: 'live' }, 'k1', 'fp'));
    again.abandon();
    clock.advance(1);
    expect(await idem.prune()).toBe(1);
    expect(readFileSync(path.join(dir, 'data', 'idempotency', 'a.jsonl'), 'utf8')).toBe('');
  });

  it('never stores 409 idempotency_in_progress as the final answer', async () => {
    expect(isFinalAnswer(inProgress)).toBe(false);
    expect(isFinalAnswer({ ...inProgress, body: JSON.stringify({ type: 'policy_block', status: 409 }) })).toBe(true);
    const idem = createIdempotency({ storeFor: () => store, leasesFor: () => createMemoryLeases(), clock });
    const first = proceed(await idem.claim({ accountId: 'a', kind: 'live' }, 'k2', 'fp'));
    // A duplicate waiting on the first is released to run itself, not handed the 409.
    const waiting = idem.claim({ accountId: 'a', kind: 'live' }, 'k2', 'fp');
    await first.complete(inProgress);
    const second = proceed(await waiting);
    await second.complete(ok);
    expect(await idem.claim({ accountId: 'a', kind: 'live' }, 'k2', 'fp')).toEqual({ kind: 'replay', answer: expect.objectContaining(ok) });
  });

  it('an answer stored before the upgrade (unversioned fingerprint) still replays for its retry; another body is a mismatch', async () => {
    const body = { b: 1, a: [2, 1] };
    const before = fingerprintRequest('POST', '/v1/x', body);
    await store.putIdempotencyRecord('a', { key: 'k3', fingerprint: before.legacy, ...ok, created_at: clock.now() });
    const idem = createIdempotency({ storeFor: () => store, leasesFor: () => createMemoryLeases(), clock });
    const caller = { accountId: 'a', kind: 'live' } as const;
    expect(await idem.claim(caller, 'k3', fingerprintRequest('POST', '/v1/x', body))).toMatchObject({ kind: 'replay' });
    await expect(idem.claim(caller, 'k3', fingerprintRequest('POST', '/v1/x', { b: 2, a: [2, 1] }))).rejects.toMatchObject({
      type: 'idempotency_mismatch',
    });
  });
});

describe('idempotency across servers sharing a store', () => {
  let dir: string;
  let store: StorePort;
  let leases: IdempotencyLeases;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'idem-cluster-'));
    store = await createLowdbStore({ dataDir: dir, keystore: createKeystore(randomBytes(32)) });
    leases = createMemoryLeases();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // Two services with their own in-memory maps on one store and one set of leases: two servers.
  const serverOn = (owner: string, clock: ManualClock, timing = { leaseMs: 10_000, renewMs: 3_000, pollMs: 5 }) =>
    createIdempotency({ storeFor: () => store, leasesFor: () => leases, clock, owner, timing });
  /** The leases `owner` asks for, as they are answered: its clock then, and who held the key. */
  function claimsOf(owner: string) {
    const asked: { now: number; holder: string }[] = [];
    const claim = leases.claim.bind(leases);
    leases.claim = async (accountId, key, c, now) => {
      const held = await claim(accountId, key, c, now);
      if (c.owner === owner) asked.push({ now, holder: held.owner });
      return held;
    };
    return asked;
  }

  it('a twin on another server waits for the first and replays its answer', async () => {
    const clock = createManualClock();
    const a = serverOn('A', clock);
    const b = serverOn('B', clock);
    const first = proceed(await a.claim({ accountId: 'a', kind: 'live' }, 'k', 'f'));
    const asked = claimsOf('B');
    let twinSettled = false;
    const twin = b.claim({ accountId: 'a', kind: 'live' }, 'k', 'f').finally(() => {
      twinSettled = true;
    });
    // The twin polls the store and is still waiting while the first runs: it has asked twice
    // and been told both times that A holds the key.
    await expect.poll(() => asked.length).toBeGreaterThanOrEqual(2);
    expect(asked.slice(0, 2).map((x) => x.holder)).toEqual(['A', 'A']);
    expect(twinSettled).toBe(false);
    await first.complete(ok);
    expect(await twin).toEqual({ kind: 'replay', answer: expect.objectContaining({ status: 200, body: ok.body }) });
    // A different request under the key on the other server is a mismatch, as on one.
    await expect(b.claim({ accountId: 'a', kind: 'live' }, 'k', 'other')).rejects.toMatchObject({ type: 'idempotency_mismatch' });
  });

  it("the first finishes on another server between the twin's read and its claim: the twin replays, it does not run again", async () => {
    const clock = createManualClock();
    const a = serverOn('A', clock);
    const b = serverOn('B', clock);
    const read = store.getIdempotencyRecord.bind(store);
    // B reads nothing stored; before B claims, A takes the key, answers, stores and releases.
    store.getIdempotencyRecord = async (...args) => {
      const seen = await read(...args);
      store.getIdempotencyRecord = read;
      await proceed(await a.claim({ accountId: 'a', kind: 'live' }, 'k', 'f')).complete(ok);
      return seen;
    };
    expect(await b.claim({ accountId: 'a', kind: 'live' }, 'k', 'f')).toEqual({
      kind: 'replay',
      answer: expect.objectContaining({ status: 200, body: ok.body }),
    });
  });

  it('a different request under a key running elsewhere is a mismatch at once', async () => {
    const clock = createManualClock();
    proceed(await serverOn('A', clock).claim({ accountId: 'a', kind: 'live' }, 'k', 'f'));
    await expect(serverOn('B', clock).claim({ accountId: 'a', kind: 'live' }, 'k', 'g')).rejects.toMatchObject({
      type: 'idempotency_mismatch',
    });
  });

  it('the first server dies mid-request (no renewal, no answer): its lease ends and the twin runs', async () => {
    const clock = createManualClock();
    // A never renews (it "died"); its claim holds for the lease only.
    proceed(
      await serverOn('A', clock, { leaseMs: 10_000, renewMs: 3_600_000, pollMs: 5 }).claim({ accountId: 'a', kind: 'live' }, 'k', 'f'),
    );
    const b = serverOn('B', clock);
    const asked = claimsOf('B');
    let ran = false;
    const twin = b.claim({ accountId: 'a', kind: 'live' }, 'k', 'f').then((c) => {
      ran = true;
      return c;
    });
    const start = clock.now();
    clock.advance(9_000);
    // A poll made 9 s into the lease still finds A's claim, and the twin waits on.
    await expect.poll(() => asked.some((x) => x.now === start + 9_000)).toBe(true);
    expect(asked.filter((x) => x.now === start + 9_000).map((x) => x.holder)).toContain('A');
    expect(ran).toBe(false);
    clock.advance(1_000);
    const c = await twin;
    expect(c.kind).toBe('proceed');
    await proceed(c).complete(ok);
  });
});
