// `presence webhooks …` and `presence listen` as child processes against a real server that
// allows private receivers (PRESENCE_WEBHOOK_ALLOW_PRIVATE=1), with a receiver on 127.0.0.1:
// --json output, exit codes, the secret shown once, and listen forwarding live events signed
// with the session secret it printed (checked with the standardwebhooks package), stopping
// cleanly on SIGINT.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startWebhookReceiver, type WebhookReceiver } from '@presence/core/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../client/test/helpers/collect';
import { startTestServer, type TestServer, tempDir } from '../../client/test/helpers/server';
import { runPresence, spawnPresence } from './helpers/cli';

let s: TestServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  s = await startTestServer({ env: { PRESENCE_WEBHOOK_ALLOW_PRIVATE: '1' } });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await s?.stop();
});

function env() {
  const home = tempDir('presence-cli-home-');
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg'), PRESENCE_URL: s.url, PRESENCE_TOKEN: s.live };
}
const json = async (args: string[]) => {
  const r = await runPresence([...args, '--json'], env());
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};
/** How long a spawned bin may take to connect: a bound on a hang, not a timing claim. */
const CHILD_START_MS = 40_000;

describe('presence webhooks', () => {
  it('create, list, test, deliveries, rotate, replay, update and delete; unknown ids exit 7', async () => {
    const created = await json(['webhooks', 'create', receiver.url, '--events', 'memory', '--description', 'cli']);
    expect(created).toMatchObject({ url: receiver.url, events: ['memory'], state: 'enabled' });
    expect(created.secret).toMatch(/^whsec_/);
    const list = await json(['webhooks', 'list']);
    expect(list.webhooks.map((w: { id: string }) => w.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain(created.secret);

    const ping = await json(['webhooks', 'test', created.id]);
    expect(ping).toMatchObject({ delivered: true, status: 200 });
    const hook = await receiver.next();
    expect(new Webhook(created.secret).verify(hook.body, hook.headers)).toMatchObject({ type: 'ping' });
    const table = await runPresence(['webhooks', 'deliveries', created.id], env());
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/ping\t1\tdelivered\t200/);

    const rotated = await json(['webhooks', 'rotate', created.id]);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(await json(['webhooks', 'replay', created.id, '--since', '0'])).toMatchObject({ id: created.id, cursor: 0 });
    expect(await json(['webhooks', 'update', created.id, '--disable'])).toMatchObject({ state: 'disabled' });
    expect(await json(['webhooks', 'delete', created.id])).toMatchObject({ id: created.id });
    const gone = await runPresence(['webhooks', 'delete', created.id], env());
    expect(gone.code).toBe(7);
    const bad = await runPresence(['webhooks', 'create', 'ftp://example.com/x'], env());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: invalid_request — /);
    // A dozen CLI starts (tsx compiles each): a bound on a hang, not a timing claim.
  }, 300_000);

  it('test: a ping the receiver did not take prints its line and exits 6, so a script can tell (it exited 0)', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const { port } = srv.address() as AddressInfo;
    await new Promise<void>((r) => srv.close(() => r())); // nothing listens there now
    const created = await json(['webhooks', 'create', `http://127.0.0.1:${port}/hook`]);
    const failed = await runPresence(['webhooks', 'test', created.id], env());
    expect([failed.code, failed.stderr]).toEqual([6, '']);
    expect(failed.stdout).toMatch(/^failed: .*ECONNREFUSED.* in \d+ ms \(ping_\w+\)\n$/);
    const asJson = await runPresence(['webhooks', 'test', created.id, '--json'], env());
    expect([asJson.code, JSON.parse(asJson.stdout).delivered]).toEqual([6, false]);
    await json(['webhooks', 'delete', created.id]);
  }, 120_000);
});

describe('presence listen', () => {
  it('prints a session secret, forwards each live event signed with it, one line each, and stops on SIGINT', async () => {
    const child = spawnPresence(['listen', '--forward-to', `${receiver.url}?listen`, '--json'], env());
    await waitFor(() => child.stdout.includes('\n'), CHILD_START_MS);
    const { secret } = JSON.parse(child.stdout.split('\n')[0] as string) as { secret: string };
    expect(secret).toMatch(/^whsec_/);
    await waitFor(() => child.stderr.includes('connected to'), CHILD_START_MS);
    const before = receiver.received.length;
    await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: 'topic:listen', tier: 'fading' });
    await waitFor(() => receiver.received.length > before, CHILD_START_MS);
    const got = receiver.received.slice(before);
    const payload = new Webhook(secret).verify(got[0]?.body ?? '', got[0]?.headers ?? {}) as { type: string; data: { key: string } };
    expect(payload.type).toBe('memory');
    expect(got[0]?.headers['webhook-id']).toMatch(/^evt_listen_\d+$/);
    await waitFor(() => child.stdout.trim().split('\n').length >= 2, CHILD_START_MS);
    const line = JSON.parse(child.stdout.trim().split('\n')[1] as string);
    expect(line).toMatchObject({ type: 'memory', status: 200, error: null });
    child.proc.kill('SIGINT');
    const r = await child.exited;
    expect(r.code).toBe(0);
  });

  it('refuses an event type no event has (it would forward nothing, silently), and reads a list with spaces', async () => {
    const typo = await runPresence(['listen', '--forward-to', receiver.url, '--events', 'tx,needs-confirm'], env());
    expect([typo.code, typo.stderr]).toEqual([
      2,
      expect.stringMatching(/^error: usage — .*unknown event type needs-confirm: use message, tx,/),
    ]);
    const child = spawnPresence(['listen', '--forward-to', `${receiver.url}?spaced`, '--events', 'tx, memory', '--json'], env());
    await waitFor(() => child.stderr.includes('connected to'), CHILD_START_MS);
    const before = receiver.received.length;
    await s.core.events.emit({ accountId: 'default', kind: 'live' }, 'memory', { key: 'topic:spaced', tier: 'fading' });
    await waitFor(() => receiver.received.length > before, CHILD_START_MS);
    child.proc.kill('SIGINT');
    expect((await child.exited).code).toBe(0);
  });
});
