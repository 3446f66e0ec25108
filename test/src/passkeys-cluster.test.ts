// Passkey approvals on two servers sharing one PostgreSQL database and one devnet, behind one
// public origin (PRESENCE_PUBLIC_URL names server a's; the browser's requests are sent to
// whichever server the test chooses, as a balancer would): a passkey enrolled through one
// server approves a hold made on the other; the same authenticator answer posted to both
// servers at once executes the hold once. Request lines never carry a link's token, and a
// refusal is logged with its reason.
import { loadConfig, type RunningServer, startServer } from '@presence/server';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSharedDevnet } from './cluster';
import { call, removeDir, tempDir } from './harness';
import { captureAssertion, type Device, launchChromium, newDevice, pressOn } from './passkey-browser';
import { freshDatabaseEnv } from './test-database';
import { OPEN_POLICY, putPolicy } from './wallet-helpers';

let devnet: Awaited<ReturnType<typeof startSharedDevnet>>;
let browser: Browser;
let device: Device;
let a: RunningServer;
let b: RunningServer;
const dirs: string[] = [];
const lines: string[] = [];
/** Which server the browser's requests to the public origin reach. */
let target: 'a' | 'b' = 'a';

const start = async (env: Record<string, string>) => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const config = loadConfig({
    PRESENCE_DATA_DIR: dataDir,
    PRESENCE_PORT: '0',
    PRESENCE_HOST: '127.0.0.1',
    PRESENCE_LOG_LEVEL: 'info',
    ...env,
  });
  return startServer({ config, maintenanceMs: 0, standingMs: 0, chain: true, logStream: { write: (l) => void lines.push(l) } });
};

beforeAll(async () => {
  devnet = await startSharedDevnet();
  const env = {
    ...(await freshDatabaseEnv()),
    PRESENCE_CHAIN: 'devnet',
    PRESENCE_RPC_URL: devnet.rpcUrl,
    PRESENCE_RATE_LIMIT: '100000/60s',
  };
  a = await start(env);
  const publicUrl = `http://localhost:${new URL(a.url).port}`;
  b = await start({ ...env, PRESENCE_PUBLIC_URL: publicUrl });
  browser = await launchChromium();
  device = await newDevice(browser);
  await device.page.route(`${publicUrl}/**`, async (route) => {
    if (target === 'a') return route.continue();
    const response = await route.fetch({ url: route.request().url().replace(publicUrl, b.url) });
    await route.fulfill({ response });
  });
}, 120_000);

// A failure shows what the servers logged as errors (a 500's cause is in the log, not the answer).
afterEach(({ task }) => {
  if (task.result?.state === 'fail') console.error(lines.filter((l) => /"level":(50|60)/.test(l)).join(''));
});

afterAll(async () => {
  await device?.context.close();
  await browser?.close();
  await a?.close();
  await b?.close();
  await devnet?.stop();
  for (const d of dirs) removeDir(d);
});

describe('passkey approvals across servers', () => {
  it('enrolled through one server, a passkey approves on the other; one answer posted to both executes once', async () => {
    const acc = { key: (await a.core.accounts.create('pk-cluster')).admin.secret };
    expect((await call(a.url, 'GET', '/v1/wallet', { key: acc.key })).status).toBe(200);
    target = 'b';
    const link = await call(a.url, 'POST', '/v1/passkeys/enroll', { key: acc.key, body: {} });
    expect(link.status, link.text).toBe(201);
    expect(await pressOn(device.page, link.json.url)).toMatchObject({ state: 'done' });
    expect((await call(a.url, 'GET', '/v1/passkeys', { key: acc.key })).json.passkeys).toHaveLength(1);
    await putPolicy(b, acc.key, { ...OPEN_POLICY, confirm_over: '100 USD', passkey_over: '5 USD' });

    // Held on a, approved through b.
    const held = await call(a.url, 'POST', '/v1/wallet/intent', { key: acc.key, body: { do: 'swap 9 USDC for WETH' } });
    expect(held.json).toMatchObject({ status: 'needs_confirm', passkey: true });
    expect(await pressOn(device.page, held.json.approve_url)).toMatchObject({ state: 'done' });
    const listed = (await call(a.url, 'GET', '/v1/confirm', { key: acc.key })).json.confirmations;
    expect(listed.find((c: { confirm_id: string }) => c.confirm_id === held.json.confirm_id)?.status).toBe('executed');

    // One authenticator answer, posted to both servers at once.
    target = 'a';
    const race = await call(b.url, 'POST', '/v1/wallet/intent', { key: acc.key, body: { do: 'swap 11 USDC for WETH' } });
    expect(race.json.passkey).toBe(true);
    const captured = await captureAssertion(device.page);
    await pressOn(device.page, race.json.approve_url);
    const body = captured() as string;
    expect(body).toContain('"signature"');
    const path = new URL(race.json.approve_url).pathname;
    const answers = await Promise.all(
      [a, b].map((s) => call(s.url, 'POST', path, { rawBody: body, headers: { 'content-type': 'application/json' } })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 403]);
    expect(answers.find((r) => r.status === 200)?.json.status).toBe('executed');
    expect(answers.find((r) => r.status === 403)?.json.type).toBe('passkey_refused');
    const after = (await call(b.url, 'GET', '/v1/confirm', { key: acc.key })).json.confirmations;
    const raced = after.find((c: { confirm_id: string }) => c.confirm_id === race.json.confirm_id);
    expect(raced).toMatchObject({ status: 'executed', tx: expect.stringMatching(/^0x/) });

    // The log: the refusal with its reason, and no token of any link in any line.
    await a.flushLog();
    await b.flushLog();
    const log = lines.join('');
    expect(log).toMatch(/"passkey_refused":\{"account_id":"pk-cluster","step":"approve","reason":"no challenge/);
    expect(log).toContain('/approve/:token');
    expect(log).toContain('/enroll/:token');
    for (const url of [link.json.url, held.json.approve_url, race.json.approve_url]) {
      const token = new URL(url).pathname.split('/')[2] as string;
      expect(log).not.toContain(token);
    }
  });
});
