// The redeem budget of a surface token, through core as the server wires it (real lowdb
// stores in a temp dir): a surface user's failed redemptions close redemption for that user
// only. The token's other users, another surface, and a redeemer without a surface token (whose
// budget is its address) still redeem a good code.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { type Core, createCore } from '../create-core';
import { PresenceError } from '../errors/presence-error';
import { createKeystore } from '../keystore/keystore';
import { createRateLimiter } from '../ratelimit/sliding-window';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import { createLowdbSurfaceStore } from '../store/lowdb/surfaces';
import type { EmbeddedStore } from '../store/store-port';
import type { SurfaceStorePort } from '../store/surface-store-port';
import { createSurfaceRedeemGuard, defaultSurfaceRedeemLimits } from './surface-redeem-guard';

const clock = createManualClock(Date.parse('2026-05-01T08:00:00Z'));
let dir: string;
let store: EmbeddedStore;
let surfaceStore: SurfaceStorePort;
let core: Core;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'surface-redeem-'));
  const keystore = createKeystore(randomBytes(32));
  store = await createLowdbStore({ dataDir: dir, fsync: false, keystore });
  surfaceStore = await createLowdbSurfaceStore({ dataDir: dir, events: store, fsync: false });
  core = createCore({ store, surfaces: surfaceStore, clock, keystore, rateLimit: { limit: 1_000, windowMs: 1_000 } });
  await core.accounts.create('acct');
});
afterEach(async () => {
  await surfaceStore.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const who = (user: string) => ({ surface: 'telegram', user_id: user, name: user });
const goodCode = async () => (await core.links.create('acct')).code;
/** A well-formed code nobody made: a failed redemption. */
const WRONG = 'ABCDEFGHJKLMNPQRSTUV';
const typeOf = (run: () => Promise<unknown>) =>
  run().then(
    () => 'redeemed',
    (e: unknown) => (e instanceof PresenceError ? e.type : String(e)),
  );

describe("a surface token's redeem budget", () => {
  it('closes for the surface user that failed, not for its other users, another surface, nor redeeming without a token', async () => {
    const surfaces = core.surfaces as NonNullable<Core['surfaces']>;
    const a = await surfaces.authenticate((await surfaces.create('bot-a')).token);
    const b = await surfaces.authenticate((await surfaces.create('bot-b')).token);
    const failures = defaultSurfaceRedeemLimits.userFailures.limit;
    for (let i = 0; i < failures; i++) expect(await typeOf(() => surfaces.redeem(a, WRONG, who('mallory')))).toBe('not_found');

    // Mallory is closed, even for a good code, and however often she tries (none of it counts against the token).
    const code = await goodCode();
    for (let i = 0; i < 700; i++) {
      const refused = await surfaces.redeem(a, code, who('mallory')).then(
        () => null,
        (e: unknown) => e,
      );
      expect((refused as PresenceError).type).toBe('rate_limited');
      if (i === 0) expect((refused as PresenceError).message).toMatch(/failed redemptions for this surface user/);
    }

    // The token's other users, B, and a redeemer without a surface token are not.
    const viaA = await surfaces.redeem(a, await goodCode(), who('ada'));
    expect(viaA.result).toMatchObject({ account: 'acct', surface_user: 'ada' });
    const viaB = await surfaces.redeem(b, await goodCode(), who('cy'));
    expect(viaB.result).toMatchObject({ account: 'acct', surface_user: 'cy' });
    const attempt = await core.links.attemptRedeem('203.0.113.7');
    const direct = await core.links.redeem(await goodCode(), who('dee'), attempt);
    expect(direct).toMatchObject({ account: 'acct', surface_user: 'dee' });
    expect(direct.key).toMatch(/^prs_live_/);
  });

  it("leaves the token's failure budget far above one user's, so only many users (a leaked token) can close it", () => {
    const l = defaultSurfaceRedeemLimits;
    expect(l.failures.limit).toBeGreaterThanOrEqual(100 * l.userFailures.limit);
    expect(l.attempts.limit).toBeGreaterThanOrEqual(10 * l.userAttempts.limit);
  });

  it('closes for the whole token once its own failure budget is spent across users', async () => {
    const guard = createSurfaceRedeemGuard({
      limits: { ...defaultSurfaceRedeemLimits, failures: { limit: 5, windowMs: 600_000 } },
      rateLimiterFor: (_scope, opts) => createRateLimiter({ ...opts, clock }),
    });
    for (let i = 0; i < 5; i++) (await guard.attempt('srf_x', `u${i}`)).settle('failed');
    const next = await guard.attempt('srf_x', 'fresh');
    expect(next.refusal?.message).toMatch(/failed redemptions with this surface token/);
    expect((await guard.attempt('srf_y', 'fresh')).refusal).toBeNull();
  });
});
