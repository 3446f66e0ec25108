// Webhook delivery through core as the server wires it, on both stores (lowdb in a temp dir;
// PostgreSQL, a throwaway cluster, with the cluster port), to a real receiver on 127.0.0.1.
// Every request is checked with the `standardwebhooks` package (nobody here wrote it). Time
// is the driven clock: retries come due when the test advances it and beats, never by waiting.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WEBHOOK_RETRY_SCHEDULE_S } from '@presence/protocol';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startPostgres, type ThrowawayPostgres } from '../../../scripts/postgres';
import { type ReceivedHook, startWebhookReceiver, type WebhookReceiver } from '../../testing/webhook-receiver';
import { createManualClock } from '../clock/clock';
import { createPostgresCluster } from '../cluster/postgres/cluster';
import { type Core, createCore } from '../create-core';
import { PresenceError } from '../errors/presence-error';
import type { Principal } from '../keys/key-service';
import { createKeystore } from '../keystore/keystore';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import { createLowdbWebhookStore } from '../store/lowdb/webhooks';
import { openDatabase } from '../store/postgres/database';
import { migrate } from '../store/postgres/migrate';
import { createPostgresStore } from '../store/postgres/postgres-store';
import { createPostgresWebhookStore } from '../store/postgres/webhooks';
import type { WebhookResolver } from './webhook-url';

type Opened = { core: Core; close(): Promise<void> };
type Harness = (o: { resolver?: WebhookResolver; allowPrivate?: boolean }) => Promise<Opened>;

const clock = createManualClock(Date.now());
const options = (o: { resolver?: WebhookResolver; allowPrivate?: boolean }) => ({
  clock,
  rateLimit: { limit: 10_000, windowMs: 1_000 },
  webhookOptions: { allowPrivate: o.allowPrivate ?? true, resolver: o.resolver, timeoutMs: 300 },
});

const lowdb: Harness = async (o) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'webhooks-'));
  const keystore = createKeystore(randomBytes(32));
  const store = await createLowdbStore({ dataDir: dir, fsync: false, keystore });
  const webhooks = await createLowdbWebhookStore({ dataDir: dir, fsync: false });
  const core = createCore({ store, webhooks, keystore, ...options(o) });
  return {
    core,
    async close() {
      await core.webhooks?.dispatcher.close();
      await webhooks.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

let pg: ThrowawayPostgres | null = null;
const postgresHarness: Harness = async (o) => {
  if (!pg) {
    pg = await startPostgres();
    await migrate(pg.url);
  }
  const url = await pg.createDatabase({ template: new URL(pg.url).pathname.slice(1) });
  const sql = openDatabase(url, { max: 6 });
  const keystore = createKeystore(randomBytes(32));
  const store = await createPostgresStore({ sql, keystore });
  const cluster = await createPostgresCluster({ sql, clock });
  const webhooks = await createPostgresWebhookStore({ sql });
  const core = createCore({ store, cluster, webhooks, keystore, ...options(o) });
  return {
    core,
    async close() {
      await core.webhooks?.dispatcher.close();
      core.events.close();
      await cluster.close();
      await store.close();
      await sql.end();
    },
  };
};
afterAll(async () => {
  await pg?.stop();
});

/** Verifies a request with the library at the time it was signed (its tolerance is five minutes of Date.now()). */
function verify(secret: string, hook: ReceivedHook) {
  vi.setSystemTime(clock.now());
  try {
    return new Webhook(secret).verify(hook.body, hook.headers) as { id: number; type: string; data: Record<string, unknown> };
  } finally {
    vi.useRealTimers();
  }
}

describe.each([
  ['lowdb', lowdb],
  ['postgres', postgresHarness],
])('webhooks on %s', (_name, harness) => {
  let opened: Opened;
  let core: Core;
  let admin: Principal;
  let receiver: WebhookReceiver;
  const hooks = () => {
    if (!core.webhooks) throw new Error('no webhooks');
    return core.webhooks;
  };
  const say = (text: string, kind: 'live' | 'test' = 'live') =>
    core.events.emit({ accountId: 'acct', kind }, 'message', { text, cause: 'standing:s1' });
  /** Beats until the endpoint has nothing in flight. */
  const beat = async () => {
    await hooks().dispatcher.tick();
    await hooks().dispatcher.settled();
  };

  beforeEach(async () => {
    opened = await harness({});
    core = opened.core;
    const { admin: key } = await core.accounts.create('acct');
    admin = await core.keys.authenticate(key.secret);
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await opened.close();
  });

  it('sends each committed event once, in order, signed, with a webhook-id stable across retries', async () => {
    const created = await hooks().create(admin, { url: receiver.url });
    expect(created.secret).toMatch(/^whsec_/);
    await say('one');
    await say('two');
    await say('three');
    const got = [await receiver.next(), await receiver.next(), await receiver.next()];
    expect(got.map((h) => verify(created.secret, h).data.text)).toEqual(['one', 'two', 'three']);
    expect(got.map((h) => h.headers['webhook-id'])).toEqual(['evt_acct_1', 'evt_acct_2', 'evt_acct_3']);
    expect(() => verify(`whsec_${randomBytes(32).toString('base64')}`, got[0] as ReceivedHook)).toThrow();
    // Over 256 KB the event goes without its data, saying so.
    await say('x'.repeat(300 * 1024));
    const big = await receiver.next();
    expect(big.body.length).toBeLessThan(1024);
    expect(verify(created.secret, big)).toMatchObject({ id: 4, type: 'message', data: { truncated: true } });
    await hooks().dispatcher.settled();
    expect((await hooks().get(admin, created.id)).cursor).toBe(4);
    const log = await hooks().deliveries(admin, created.id, 10);
    expect(log.map((d) => [d.event_id, d.outcome, d.status])).toEqual([
      [4, 'delivered', 200],
      [3, 'delivered', 200],
      [2, 'delivered', 200],
      [1, 'delivered', 200],
    ]);
  });

  it('retries on the schedule by the clock (500, no answer, a closed socket), then disables and says so; enabling resumes', async () => {
    const created = await hooks().create(admin, { url: receiver.url });
    receiver.answer({ status: 500 });
    await say('hello');
    const first = await receiver.next();
    await hooks().dispatcher.settled();
    const [failed] = await hooks().deliveries(admin, created.id, 1);
    expect(failed).toMatchObject({ outcome: 'failed', status: 500, attempt: 1 });
    expect(Date.parse(failed?.next_attempt_at ?? '')).toBe(clock.now() + 5_000);
    // Not due yet: a beat sends nothing.
    clock.advance(4_000);
    await beat();
    expect(receiver.received).toHaveLength(1);
    const behaviours = ['hang', 'close', { status: 503 }, { status: 302 }, { status: 500 }, { status: 404 }, { status: 500 }] as const;
    for (const [i, wait] of WEBHOOK_RETRY_SCHEDULE_S.entries()) {
      receiver.answer(behaviours[i] as (typeof behaviours)[number]);
      clock.advance(wait * 1000);
      if (i === 0) clock.advance(-4_000);
      await beat();
      const again = await receiver.next();
      expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(verify(created.secret, again).data.text).toBe('hello');
    }
    const view = await hooks().get(admin, created.id);
    expect(view).toMatchObject({ state: 'disabled', disabled_reason: 'failing', cursor: 0 });
    const attempts = await hooks().deliveries(admin, created.id, 20);
    expect(attempts).toHaveLength(8);
    expect(attempts.map((a) => a.error !== null || a.status !== null)).not.toContain(false);
    expect(attempts[0]?.next_attempt_at).toBeNull();
    const events = await core.store.eventsAfter('acct', 1, 10);
    expect(events.map((e) => [e.type, e.data.webhook_id, e.data.reason])).toEqual([['webhook_disabled', created.id, 'failing']]);
    expect(hooks().dispatcher.backlog(5)).toEqual([{ id: created.id, events: 1 }]);
    // Nothing more while disabled; enabling resumes from the cursor.
    clock.advance(86_400_000);
    await beat();
    expect(receiver.received).toHaveLength(8);
    receiver.answer({ status: 204 });
    await hooks().update(admin, created.id, { state: 'enabled' });
    expect(verify(created.secret, await receiver.next()).data.text).toBe('hello');
    await hooks().dispatcher.settled();
    expect(hooks().dispatcher.backlog(5)).toEqual([]);
  });

  it('sends only what the creating key may read, of the listed types; a test key gets test events only', async () => {
    const walletOnly = await core.keys.issue(admin, { kind: 'live', name: 'w', scopes: ['admin', 'wallet:read'] });
    const w = await core.keys.authenticate(walletOnly.secret);
    const test = await core.keys.issue(admin, { kind: 'test', name: 't', scopes: ['admin', 'talk'] });
    const t = await core.keys.authenticate(test.secret);
    const all = await hooks().create(admin, { url: receiver.url, events: ['message'] });
    const forWallet = await hooks().create(w, { url: `${receiver.url}?w` });
    const forTest = await hooks().create(t, { url: `${receiver.url}?t` });
    expect(forTest.mode).toBe('test');
    await say('live words');
    await say('test words', 'test');
    await hooks().dispatcher.settled();
    const byPath = (q: string) => receiver.received.filter((h) => h.path.endsWith(q));
    expect(byPath('/hook').map((h) => verify(all.secret, h).data.text)).toEqual(['live words']);
    expect(byPath('?t').map((h) => verify(forTest.secret, h).data.text)).toEqual(['test words']);
    expect(byPath('?t')[0]?.headers['webhook-id']).toBe('evt_test_acct_1');
    // The wallet-only key reads no messages; it does read admin notices.
    expect(byPath('?w')).toHaveLength(0);
    await core.keys.revoke(admin, walletOnly.id);
    await hooks().dispatcher.settled();
    await vi.waitUntil(async () => (await hooks().get(admin, forWallet.id)).state === 'disabled');
    expect((await hooks().get(admin, forWallet.id)).disabled_reason).toBe('key_revoked');
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const created = await hooks().create(admin, { url: receiver.url });
    const { secret } = await hooks().rotate(admin, created.id);
    await say('both');
    const both = await receiver.next();
    expect(both.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verify(created.secret, both).data.text).toBe('both');
    expect(verify(secret, both).data.text).toBe('both');
    clock.advance(24 * 3600_000 + 1);
    await say('new only');
    const after = await receiver.next();
    expect(after.headers['webhook-signature']?.split(' ')).toHaveLength(1);
    expect(verify(secret, after).data.text).toBe('new only');
    expect(() => verify(created.secret, after)).toThrow();
  });

  it('pings, replays from an event id, and caps endpoints per account', async () => {
    const created = await hooks().create(admin, { url: receiver.url });
    const ping = await hooks().ping(admin, created.id);
    expect(ping).toMatchObject({ delivered: true, status: 200 });
    expect(verify(created.secret, await receiver.next())).toMatchObject({ id: 0, type: 'ping' });
    await say('a');
    await say('b');
    await receiver.next();
    await receiver.next();
    await hooks().dispatcher.settled();
    await hooks().replay(admin, created.id, 1);
    const replayed = await receiver.next();
    expect(replayed.headers['webhook-id']).toBe('evt_acct_2');
    await hooks().dispatcher.settled();
    for (let i = 1; i < 16; i++) await hooks().create(admin, { url: `${receiver.url}?${i}` });
    const refused = await hooks()
      .create(admin, { url: receiver.url })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PresenceError);
    expect((refused as PresenceError).extra.limit).toBe('webhooks_per_account');
    await expect(hooks().get(admin, 'wh_0000000000000000')).rejects.toMatchObject({ type: 'not_found' });
  });
});
