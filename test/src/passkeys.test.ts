// Passkey approvals end to end, in real headless Chromium with a virtual authenticator
// (passkey-browser.ts), on each store: enroll through the one-time link; a hold over
// passkey_over carries its approve link and refuses a plain approve; the page approves it with
// the passkey (executed once) or denies it in one tap; a second authenticator, another
// account's credential, a replayed assertion and a used link are refused; under the threshold
// a plain call approves as before. Many servers: passkeys-cluster.test.ts.
import { createSoftAuthenticator } from '@presence/core/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createManualClock, removeDir, startTestServer, type TestServer, tempDir } from './harness';
import { captureAssertion, type Device, launchChromium, newDevice, pressOn } from './passkey-browser';
import { freshDatabaseEnv } from './test-database';
import { eventMatching, newAccount, OPEN_POLICY, putPolicy } from './wallet-helpers';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** What a page's link looks like when the server's public URL is its default. */
const LINK = (s: TestServer, kind: 'enroll' | 'approve') =>
  new RegExp(`^http://localhost:${new URL(s.url).port}/${kind}/[0-9A-Za-z_-]{43}$`);
const PASSKEY_POLICY = { per_tx_cap: '1000 USD', confirm_over: '100 USD', passkey_over: '5 USD', daily_cap: '100000 USD' };

describe.each(['lowdb', 'postgres'] as const)('passkey approvals on %s', (store) => {
  let s: TestServer;
  let dir: string;
  let device: Device;
  let a: Awaited<ReturnType<typeof newAccount>>;
  // Real time, moved on only where a test lets a link expire.
  const clock = createManualClock(Date.now());
  const intent = (key: string, text: string) => call(s.url, 'POST', '/v1/wallet/intent', { key, body: { do: text } });
  const confirm = (key: string, id: string, approve: boolean) => call(s.url, 'POST', `/v1/confirm/${id}`, { key, body: { approve } });
  const statusOf = async (key: string, id: string) =>
    ((await call(s.url, 'GET', '/v1/confirm', { key })).json.confirmations as { confirm_id: string; status: string }[]).find(
      (c) => c.confirm_id === id,
    )?.status;
  const enrollLink = async (key: string) => {
    const r = await call(s.url, 'POST', '/v1/passkeys/enroll', { key, body: { name: 'laptop' } });
    expect(r.status, r.text).toBe(201);
    return r.json.url as string;
  };

  beforeAll(async () => {
    dir = tempDir();
    const env = store === 'postgres' ? await freshDatabaseEnv() : {};
    s = await startTestServer({ dataDir: dir, env: { ...env, PRESENCE_RATE_LIMIT: '100000/60s' }, chain: true, clock });
    device = await newDevice(browser);
    a = await newAccount(s, 'pk-a');
  }, 120_000);
  afterAll(async () => {
    await device?.context.close();
    await s?.close();
    if (dir) removeDir(dir);
  });

  it('passkey_over needs a passkey; the enroll link adds one, once', async () => {
    const refused = await call(s.url, 'PUT', '/v1/wallet/policy', { key: a.key, body: { ...OPEN_POLICY, ...PASSKEY_POLICY } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json).toMatchObject({ type: 'conflict', rule: 'passkey_over' });

    const url = await enrollLink(a.key);
    expect(url).toMatch(LINK(s, 'enroll'));
    expect(await pressOn(device.page, url)).toMatchObject({ state: 'done', text: expect.stringContaining('Passkey added') });
    const listed = await call(s.url, 'GET', '/v1/passkeys', { key: a.key });
    expect(listed.json.passkeys).toEqual([
      { id: expect.stringMatching(/^pk_/), name: 'laptop', created_at: expect.any(String), last_used_at: null },
    ]);
    const held = (await device.cdp.send('WebAuthn.getCredentials', { authenticatorId: device.authenticatorId })).credentials;
    expect(held).toHaveLength(1);

    // The link is spent: its page says so, and its steps answer 404.
    await device.page.goto(url);
    expect(await device.page.evaluate(() => document.body.dataset.state)).toBe('used');
    expect(await device.page.locator('#go').count()).toBe(0);
    expect((await call(s.url, 'POST', `${new URL(url).pathname}/options`, { body: {} })).status).toBe(404);

    // The pages' policy: scripts only from this origin and with the response's nonce, nothing third-party.
    const page = await call(s.url, 'GET', new URL(url).pathname);
    const csp = page.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(csp).toMatch(/^default-src 'none'; script-src 'nonce-[^']+'; style-src 'nonce-[^']+'; connect-src 'self';/);
    expect(csp).not.toMatch(/https?:/);
    expect([...page.text.matchAll(/<script nonce="([^"]+)" src="([^"]+)">/g)].map((m) => [m[1], m[2]])).toEqual([
      [nonce, '/assets/passkeys/webauthn.js'],
      [nonce, '/assets/passkeys/page.js'],
    ]);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await call(s.url, 'GET', '/assets/passkeys/webauthn.js')).text).toContain('SimpleWebAuthnBrowser');
    expect((await call(s.url, 'GET', '/enroll/nosuchtokennosuchtokennosuchtoken')).status).toBe(404);

    await putPolicy(s, a.key, PASSKEY_POLICY);
  });

  it('a hold over passkey_over carries its approve link; a plain approve is 403 passkey_required', async () => {
    const r = await intent(a.key, 'swap 15 USDC for WETH');
    expect(r.status, r.text).toBe(202);
    expect(r.json).toMatchObject({ status: 'needs_confirm', passkey: true, approve_url: expect.stringMatching(LINK(s, 'approve')) });
    const ev = await eventMatching(s, a.key, (f) => f.event === 'needs_confirm' && f.data.confirm_id === r.json.confirm_id);
    expect(ev.data).toMatchObject({ passkey: true, approve_url: r.json.approve_url });
    const plain = await confirm(a.key, r.json.confirm_id, true);
    expect(plain.status, plain.text).toBe(403);
    expect(plain.json).toMatchObject({ type: 'passkey_required', approve_url: r.json.approve_url });
    const listed = (await call(s.url, 'GET', '/v1/confirm?status=held', { key: a.key })).json.confirmations;
    expect(listed).toEqual([expect.objectContaining({ confirm_id: r.json.confirm_id, passkey: true, approve_url: r.json.approve_url })]);

    // The page shows the hold; the passkey approves it and it executes, once.
    await device.page.goto(r.json.approve_url);
    expect(await device.page.locator('#summary').textContent()).toBe(r.json.summary);
    expect(await device.page.locator('#amount').textContent()).toMatch(/^15 USDC \(15\.00 USD\)$/);
    expect(await pressOn(device.page, null)).toMatchObject({
      state: 'done',
      text: expect.stringMatching(/^Approved and executed in block \d+\.$/),
    });
    expect(await statusOf(a.key, r.json.confirm_id)).toBe('executed');
    const [pk] = (await call(s.url, 'GET', '/v1/passkeys', { key: a.key })).json.passkeys;
    expect(pk.last_used_at).not.toBeNull();

    // A used link: the page says so, and it cannot start again.
    await device.page.reload();
    expect(await device.page.evaluate(() => document.body.dataset.state)).toBe('done');
    expect((await call(s.url, 'POST', `${new URL(r.json.approve_url).pathname}/options`, { body: {} })).status).toBe(404);
  });

  it('a replayed assertion is refused, on its own link and on another hold’s', async () => {
    const first = await intent(a.key, 'swap 6 USDC for WETH');
    expect(first.json.passkey).toBe(true);
    const captured = await captureAssertion(device.page);
    await pressOn(device.page, first.json.approve_url);
    await device.page.unroute(/\/approve\/[^/]+$/);
    const body = captured() as string;
    expect(body).toContain('"authenticatorData"');
    const path = new URL(first.json.approve_url).pathname;
    const send = (p: string) => call(s.url, 'POST', p, { rawBody: body, headers: { 'content-type': 'application/json' } });

    const once = await send(path);
    expect(once.status, once.text).toBe(200);
    expect(once.json.status).toBe('executed');
    const replay = await send(path);
    expect(replay.status, replay.text).toBe(403);
    expect(replay.json.type).toBe('passkey_refused');

    // On another hold, even with a challenge of its own issued: the signature is over the old one.
    const second = await intent(a.key, 'swap 7 USDC for WETH');
    const other = new URL(second.json.approve_url).pathname;
    expect((await call(s.url, 'POST', `${other}/options`, { body: {} })).status).toBe(200);
    const moved = await send(other);
    expect(moved.status, moved.text).toBe(403);
    expect(moved.json.type).toBe('passkey_refused');
    expect(await statusOf(a.key, second.json.confirm_id)).toBe('held');
    // Deny stays one tap.
    expect(await pressOn(device.page, second.json.approve_url, '#deny')).toMatchObject({ state: 'denied' });
    expect(await statusOf(a.key, second.json.confirm_id)).toBe('denied');
  });

  it('another device without the passkey, and another account’s passkey, approve nothing', async () => {
    const r = await intent(a.key, 'swap 8 USDC for WETH');
    const other = await newDevice(browser);
    try {
      expect(await pressOn(other.page, r.json.approve_url)).toMatchObject({
        state: 'no-passkey',
        text: expect.stringContaining('This device has no passkey for this account'),
      });
      // Account b's passkey on that device; the options are stripped of a's credentials so
      // the authenticator offers b's: the server refuses it.
      const b = await newAccount(s, 'pk-b');
      expect(await pressOn(other.page, await enrollLink(b.key))).toMatchObject({ state: 'done' });
      await other.page.route(/\/approve\/[^/]+\/options$/, async (route) => {
        const res = await route.fetch();
        await route.fulfill({ response: res, json: { ...(await res.json()), allowCredentials: [] } });
      });
      expect(await pressOn(other.page, r.json.approve_url)).toMatchObject({ state: 'refused' });
      expect(await statusOf(a.key, r.json.confirm_id)).toBe('held');
      // The device that has a's passkey, with user verification failing: nothing is approved.
      await device.cdp.send('WebAuthn.setUserVerified', { authenticatorId: device.authenticatorId, isUserVerified: false });
      expect((await pressOn(device.page, r.json.approve_url)).state).not.toBe('done');
      await device.cdp.send('WebAuthn.setUserVerified', { authenticatorId: device.authenticatorId, isUserVerified: true });
      expect(await statusOf(a.key, r.json.confirm_id)).toBe('held');
      expect(await pressOn(device.page, r.json.approve_url)).toMatchObject({ state: 'done' });
    } finally {
      await other.context.close();
    }
  });

  it('an answer from another origin, or without user verification, is refused; the right one approves', async () => {
    const soft = await newAccount(s, 'pk-soft');
    const origin = `http://localhost:${new URL(s.url).port}`;
    const good = createSoftAuthenticator({ origin });
    const link = new URL(await enrollLink(soft.key)).pathname;
    const made = await call(s.url, 'POST', `${link}/options`, { body: {} });
    const added = await call(s.url, 'POST', link, { body: good.register(made.json) });
    expect(added.status, added.text).toBe(201);
    await putPolicy(s, soft.key, PASSKEY_POLICY);
    const r = await intent(soft.key, 'swap 9 USDC for WETH');
    const path = new URL(r.json.approve_url).pathname;
    const attempt = async (answer: (o: { challenge: string; rpId?: string }) => unknown) => {
      const options = await call(s.url, 'POST', `${path}/options`, { body: {} });
      return call(s.url, 'POST', path, { body: answer(options.json) });
    };
    const elsewhere = await attempt((o) => good.assert(o, { origin: 'http://localhost:1' }));
    expect([elsewhere.status, elsewhere.json.type]).toEqual([403, 'passkey_refused']);
    // Signed by the right key, but the device did not verify the user.
    const unverified = await attempt((o) => good.assert(o, { verified: false }));
    expect([unverified.status, unverified.json.type]).toEqual([403, 'passkey_refused']);
    expect(await statusOf(soft.key, r.json.confirm_id)).toBe('held');
    const ok = await attempt((o) => good.assert(o));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.status).toBe('executed');
  });

  it('under passkey_over a hold is approved by a plain call, as before', async () => {
    await putPolicy(s, a.key, { ...PASSKEY_POLICY, confirm_over: '1 USD' });
    const small = await intent(a.key, 'swap 2 USDC for WETH');
    expect(small.status).toBe(202);
    expect(small.json.passkey).toBeUndefined();
    expect(small.json.approve_url).toBeUndefined();
    const ok = await confirm(a.key, small.json.confirm_id, true);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.status).toBe('executed');
  });

  it('a test key’s hold follows the same rules, in simulation', async () => {
    const scopes = ['talk', 'memory:read', 'memory:write', 'wallet:read', 'wallet:act', 'admin'] as const;
    const t = (await s.core.keys.create(a.name, { kind: 'test', name: 'sandbox', scopes: [...scopes] })).secret;
    await putPolicy(s, t, PASSKEY_POLICY);
    const r = await intent(t, 'swap 15 USDC for WETH');
    expect(r.status, r.text).toBe(202);
    expect(r.json).toMatchObject({ simulated: true, passkey: true, approve_url: expect.stringMatching(LINK(s, 'approve')) });
    expect((await confirm(t, r.json.confirm_id, true)).json.type).toBe('passkey_required');
    await device.page.goto(r.json.approve_url);
    expect(await device.page.locator('.note').first().textContent()).toContain('simulates it');
    expect(await pressOn(device.page, null)).toMatchObject({ state: 'done' });
    expect(await statusOf(t, r.json.confirm_id)).toBe('executed');
    // The live side saw none of it.
    expect(await statusOf(a.key, r.json.confirm_id)).toBeUndefined();
  });

  it('an approve link whose hold expired says so, and starts nothing', async () => {
    await putPolicy(s, a.key, PASSKEY_POLICY);
    const r = await intent(a.key, 'swap 9 USDC for WETH');
    clock.advance(601_000);
    await device.page.goto(r.json.approve_url);
    expect(await device.page.evaluate(() => document.body.dataset.state)).toBe('expired');
    expect(await device.page.locator('#status').textContent()).toBe('This link has expired: nothing was executed.');
    expect(await device.page.locator('#go').count()).toBe(0);
    expect((await call(s.url, 'POST', `${new URL(r.json.approve_url).pathname}/options`, { body: {} })).status).toBe(404);
  });

  it('the last passkey cannot be removed while passkey_over is set', async () => {
    const [pk] = (await call(s.url, 'GET', '/v1/passkeys', { key: a.key })).json.passkeys;
    const last = await call(s.url, 'DELETE', `/v1/passkeys/${pk.id}`, { key: a.key });
    expect(last.status, last.text).toBe(409);
    await putPolicy(s, a.key, { ...OPEN_POLICY });
    expect((await call(s.url, 'DELETE', `/v1/passkeys/${pk.id}`, { key: a.key })).status).toBe(204);
    expect((await call(s.url, 'GET', '/v1/passkeys', { key: a.key })).json.passkeys).toEqual([]);
  });
});
