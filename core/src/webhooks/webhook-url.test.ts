// No SSRF, without a byte leaving this machine: the resolver is a port, so a public-looking
// name can answer whatever the test says. Refused at creation: http, loopback, private,
// link-local (metadata), CGNAT, multicast and their IPv6 forms (mapped ones too); refused at
// delivery when the name has since come to answer a private address (the request is never
// made, the attempt is logged as failed and retried on the schedule).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../testing/webhook-receiver';
import { createManualClock } from '../clock/clock';
import { type Core, createCore } from '../create-core';
import type { Principal } from '../keys/key-service';
import { createKeystore } from '../keystore/keystore';
import { createLowdbStore } from '../store/lowdb/lowdb-store';
import { createLowdbWebhookStore } from '../store/lowdb/webhooks';
import type { EmbeddedStore } from '../store/store-port';
import type { WebhookStorePort } from '../store/webhook-store-port';
import { isPublicAddress, resolveWebhookTarget, type WebhookResolver } from './webhook-url';

const answers = new Map<string, string>([
  ['hooks.example.com', '93.184.215.14'],
  ['metadata.example.com', '169.254.169.254'],
  ['inside.example.com', '10.1.2.3'],
  ['v6inside.example.com', 'fd00::1'],
]);
const resolver: WebhookResolver = async (host) => {
  const a = answers.get(host);
  if (!a) throw new Error('ENOTFOUND');
  return [{ address: a, family: a.includes(':') ? 6 : 4 }];
};
const strict = { allowPrivate: false, resolver };

describe('webhook URLs', () => {
  it('judges addresses by range: only public unicast passes', () => {
    for (const a of ['93.184.215.14', '2606:4700::1111']) expect(isPublicAddress(a), a).toBe(true);
    const refused = [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ];
    for (const a of refused) expect(isPublicAddress(a), a).toBe(false);
  });

  it('refuses at creation what is not https to a public address', async () => {
    const refused = [
      'http://hooks.example.com/x',
      'ftp://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://localhost.invalid/x',
      'https://10.0.0.8/x',
      'https://169.254.169.254/latest/meta-data',
      'https://metadata.example.com/x',
      'https://inside.example.com/x',
      'https://v6inside.example.com/x',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://user:pass@hooks.example.com/x',
      'not a url',
    ];
    for (const url of refused) await expect(resolveWebhookTarget(url, strict), url).rejects.toMatchObject({ type: 'invalid_request' });
    const ok = await resolveWebhookTarget('https://hooks.example.com/x', strict);
    expect(ok.address).toEqual({ address: '93.184.215.14', family: 4 });
  });

  it('allows http and private addresses only when told (development)', async () => {
    const t = await resolveWebhookTarget('http://127.0.0.1:3000/hook', { allowPrivate: true, resolver });
    expect(t.address.address).toBe('127.0.0.1');
  });
});

describe('the address is checked again at each delivery', () => {
  let dir: string;
  let store: EmbeddedStore;
  let webhooks: WebhookStorePort;
  let core: Core;
  let admin: Principal;
  let receiver: WebhookReceiver;
  const clock = createManualClock(Date.now());

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'webhook-url-'));
    store = await createLowdbStore({ dataDir: dir, fsync: false, keystore: createKeystore(randomBytes(32)) });
    webhooks = await createLowdbWebhookStore({ dataDir: dir, fsync: false });
    core = createCore({ store, webhooks, clock, rateLimit: { limit: 1_000, windowMs: 1_000 }, webhookOptions: { resolver } });
    admin = await core.keys.authenticate((await core.accounts.create('acct')).admin.secret);
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await core.webhooks?.dispatcher.close();
    await receiver.close();
    await webhooks.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a name that now answers a private address is not sent to; the attempt fails and is retried', async () => {
    const hooks = core.webhooks;
    if (!hooks) throw new Error('no webhooks');
    await expect(hooks.create(admin, { url: receiver.url })).rejects.toMatchObject({ type: 'invalid_request' });
    const created = await hooks.create(admin, { url: 'https://hooks.example.com/hook' });
    answers.set('hooks.example.com', '127.0.0.1');
    await core.events.emit({ accountId: 'acct', kind: 'live' }, 'message', { text: 'hi', cause: 'standing:s' });
    await hooks.dispatcher.settled();
    const [attempt] = await hooks.deliveries(admin, created.id, 5);
    expect(attempt).toMatchObject({ outcome: 'failed', status: null, event_id: 1 });
    expect(attempt?.error).toMatch(/127\.0\.0\.1, which is not a public address/);
    expect(attempt?.next_attempt_at).not.toBeNull();
    expect(receiver.received).toHaveLength(0);
    await expect(hooks.update(admin, created.id, { url: receiver.url })).rejects.toMatchObject({ type: 'invalid_request' });
  });
});
