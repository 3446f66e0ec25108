// The redeem budget of a surface token, through core as the server wires it (real lowdb
// stores in a temp dir): a surface's failed redemptions close redemption for that surface
// only. Another surface, and a redeemer without a surface token (whose budget is its address),
// still redeem a good code.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../clock/clock';
import { type Core, createCore } from '../create-core';
import { PresenceError } from '../errors/presence-error';
import { createKeystore } from '../keystore/keystore';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import { createLowdbSurfaceStore } from '../store/lowdb/surfaces';
import type { EmbeddedStore } from '../store/store-port';
import type { SurfaceStorePort } from '../store/surface-store-port';
import { defaultSurfaceRedeemLimits } from './surface-redeem-guard';

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
  it('closes for the surface that failed, not for another surface nor for redeeming without a token', async () => {
    const surfaces = core.surfaces as NonNullable<Core['surfaces']>;
    const a = await surfaces.authenticate((await surfaces.create('bot-a')).token);
    const b = await surfaces.authenticate((await surfaces.create('bot-b')).token);
    const failures = defaultSurfaceRedeemLimits.failures.limit;
    for (let i = 0; i < failures; i++) expect(await typeOf(() => surfaces.redeem(a, WRONG, who(`guess${i}`)))).toBe('not_found');

    // A is closed, even for a good code.
    const refused = await surfaces.redeem(a, await goodCode(), who('late')).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(PresenceError);
    expect((refused as PresenceError).type).toBe('rate_limited');
    expect((refused as PresenceError).message).toMatch(/failed redemptions with this surface token/);

    // B, and a redeemer without a surface token, are not.
    const viaB = await surfaces.redeem(b, await goodCode(), who('cy'));
    expect(viaB.result).toMatchObject({ account: 'acct', surface_user: 'cy' });
    const attempt = await core.links.attemptRedeem('203.0.113.7');
    const direct = await core.links.redeem(await goodCode(), who('dee'), attempt);
    expect(direct).toMatchObject({ account: 'acct', surface_user: 'dee' });
    expect(direct.key).toMatch(/^prs_live_/);
  });
});
