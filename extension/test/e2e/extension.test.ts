// End to end in real headless Chromium (the distribution's, through playwright-core; found as
// scripts/chromium.ts says, which `npm test`'s pretest installs when it is missing):
// build the extension with Plasmo, start a real Presence server (with its devnet), link
// through the options page with a one-time code, chat, check the wallet total against
// GET /v1/wallet, and approve a held intent from the Pending tab while the badge, read from
// the service worker, goes 1 → 0. Screenshots of each view go to test-artifacts/.
//
// Host permission: the options page asks for the server's origin with
// chrome.permissions.request, which needs a click and then shows a browser prompt. Headless
// Chromium has no prompt to accept (the request stays pending forever; there is no switch to
// auto-accept it), so the test loads a copy of the production build whose manifest also
// grants http://127.0.0.1/* up front: what the user's "Allow" would grant. The request made
// by the page then resolves true at once, and everything else is the shipped bundle as built.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPresenceClient, type PresenceClient, readableSummary } from '@presence/client';
import { loadConfig, type RunningServer, startServer } from '@presence/server';
import { type BrowserContext, chromium, type Page, type Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, INSTALL_HINT } from '../../../scripts/chromium';
import { formatAmount } from '../../src/lib/format';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILD = path.join(ROOT, 'build/chrome-mv3-prod');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');

let tmp: string;
let server: RunningServer;
let admin: PresenceClient;
let context: BrowserContext;
let sw: Worker;
let extensionId: string;
let popup: Page;

/** `plasmo build` (what `npm run build` runs before `plasmo package`), failing the test on any error. */
async function buildExtension(): Promise<void> {
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('plasmo/package.json')), 'bin/index.mjs');
  const child = spawn(process.execPath, [bin, 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  // Plasmo exits 1 on a build error. (It also checks the registry for a newer plasmo in the
  // background and logs an ERROR line when that fails, e.g. offline: harmless, so not matched.)
  if (code !== 0) throw new Error(`plasmo build failed (${code}):\n${out}`);
  // htmlnano warns once per page when its SVG minifier has no svgo; the root package.json turns
  // that minifier off (the pages hold no inline SVG), so the build says nothing about it.
  if (/install "svgo"/.test(out)) throw new Error(`plasmo build warned about svgo:\n${out}`);
  // Guard against Parcel silently leaving a module out (see src/vendor/zod.ts): in the
  // bundle an excluded dependency is written as "specifier":!1.
  for (const file of listJs(BUILD)) {
    const excluded = readFileSync(file, 'utf8').match(/"[^"]{1,200}":!1\b/g);
    if (excluded) throw new Error(`${path.relative(ROOT, file)}: Parcel excluded ${excluded.join(', ')}`);
  }
}

function listJs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listJs(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : [],
  );
}

/** A copy of the build with host access to loopback granted (see the note at the top). */
function loadableCopy(): string {
  const dir = path.join(tmp, 'extension');
  cpSync(BUILD, dir, { recursive: true });
  const manifestPath = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  expect(manifest.optional_host_permissions).toEqual(['http://*/*', 'https://*/*']);
  expect(manifest.host_permissions).toBeUndefined();
  manifest.host_permissions = ['http://127.0.0.1/*'];
  writeFileSync(manifestPath, JSON.stringify(manifest));
  return dir;
}

const badgeCount = async () => {
  const text = await sw.evaluate(() => chrome.action.getBadgeText({}));
  return text === '' ? 0 : Number(text);
};

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

beforeAll(async () => {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(`no Chromium found: ${INSTALL_HINT}`);
  tmp = mkdtempSync(path.join(tmpdir(), 'presence-e2e-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  const [, started] = await Promise.all([
    buildExtension(),
    startServer({
      config: loadConfig({
        PRESENCE_DATA_DIR: path.join(tmp, 'data'),
        PRESENCE_HOST: '127.0.0.1',
        PRESENCE_PORT: '0',
        PRESENCE_RATE_LIMIT: '100000/60s',
      } as unknown as NodeJS.ProcessEnv),
      logger: false,
      maintenanceMs: 0,
      standingMs: 0,
      chain: true,
    }),
  ]);
  server = started;
  admin = createPresenceClient({ baseUrl: server.url, token: server.bootstrap!.live });
  await admin.presence.update({ name: 'Ada' });

  const dir = loadableCopy();
  context = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath,
    headless: true,
    viewport: { width: 380, height: 560 },
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-features=DisableLoadExtensionCommandLineSwitch',
      `--disable-extensions-except=${dir}`,
      `--load-extension=${dir}`,
    ],
  });
  sw = context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://')) ?? (await context.waitForEvent('serviceworker'));
  extensionId = new URL(sw.url()).host;
}, 240_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the extension in Chromium', () => {
  it('loads with its manifest: MV3, storage/notifications/alarms, optional host permissions only', async () => {
    const manifest = await sw.evaluate(() => chrome.runtime.getManifest());
    expect(manifest.manifest_version).toBe(3);
    expect(manifest.name).toBe('Presence');
    expect(manifest.permissions).toEqual(['storage', 'notifications', 'alarms']);
    expect(await badgeCount()).toBe(0);
  });

  it('links through the options page with a one-time code', async () => {
    const { code } = await admin.links.create();
    const page = await context.newPage();
    await page.setViewportSize({ width: 640, height: 640 });
    await page.goto(`chrome-extension://${extensionId}/options.html`);
    await page.getByTestId('options-url').fill(server.url);
    await page.getByTestId('options-key').fill(code);
    await page.getByTestId('options-save').click();
    await expect.poll(() => page.getByTestId('options-status').textContent(), { timeout: 15_000 }).toBe('Linked to Ada.');
    await shot(page, 'options');

    const stored = await sw.evaluate(() => chrome.storage.local.get('settings'));
    const settings = stored.settings as { serverUrl: string; key: string; presenceName: string };
    expect(settings.serverUrl).toBe(server.url);
    expect(settings.key).toMatch(/^prs_live_/);
    expect(settings.presenceName).toBe('Ada');
    const origins = await sw.evaluate(() => chrome.permissions.getAll().then((p) => p.origins ?? []));
    expect(origins).not.toContain('<all_urls>');
    await page.close();
  });

  it('chat: sends a message and shows the streamed reply, as the server kept it', async () => {
    popup = await context.newPage();
    await popup.goto(`chrome-extension://${extensionId}/popup.html`);
    await expect.poll(() => popup.getByTestId('presence-name').textContent()).toBe('Ada');
    await popup.getByTestId('chat-input').fill('what do I hold');
    await popup.getByTestId('chat-send').click();
    const reply = popup.getByTestId('chat-reply').last();
    await expect.poll(() => reply.evaluate((el) => el.closest('li')?.getAttribute('aria-busy')), { timeout: 20_000 }).toBe('false');
    const thread = await admin.messages.history({ limit: 1 });
    const kept = thread.messages.at(-1);
    expect(kept?.role).toBe('presence');
    expect(await reply.textContent()).toBe(kept?.text);
    expect(kept?.text).toMatch(/USDC/);
    await shot(popup, 'chat');
  });

  it('wallet: the total matches GET /v1/wallet', async () => {
    await popup.getByTestId('tab-wallet').click();
    const total = popup.getByTestId('wallet-total');
    await total.waitFor();
    const w = await admin.wallet.get();
    expect(await total.textContent()).toBe(formatAmount(w.total_usd));
    expect(await popup.getByTestId('wallet-address').textContent()).toBe(w.address);
    await shot(popup, 'wallet');
    await popup.emulateMedia({ colorScheme: 'dark' });
    await shot(popup, 'wallet-dark');
    await popup.emulateMedia({ colorScheme: 'light' });
  });

  it('pending: a held intent raises the badge to 1; Approve in the Pending tab executes it and the badge goes back to 0', async () => {
    await popup.getByTestId('tab-pending').click();
    await popup.getByText('Nothing waiting').waitFor();
    expect(await badgeCount()).toBe(0);

    const held = await admin.wallet.intent({ do: 'swap 20 USDC for WETH' });
    expect(held.status).toBe('needs_confirm');
    await until(badgeCount, (n) => n === 1, 'badge 1');
    const notifications = await sw.evaluate(() => chrome.notifications.getAll());
    if (held.status !== 'needs_confirm') throw new Error('unreachable');
    expect(Object.keys(notifications)).toContain(`confirm:${held.confirm_id}`);

    // The worker forwards needs_confirm to the open popup, which shows the item without a reload.
    const item = popup.getByTestId('pending-item');
    await item.waitFor();
    expect(await item.textContent()).toContain(readableSummary(held.summary));
    expect(await item.getByRole('timer').textContent()).toMatch(/^(10:00|9:\d\d) left$/);
    await shot(popup, 'pending');

    await item.getByTestId('approve').click();
    const tx = item.getByTestId('pending-tx');
    await tx.waitFor({ timeout: 20_000 });
    const hash = await tx.textContent();
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    await until(badgeCount, (n) => n === 0, 'badge 0');
    const { confirmations } = await admin.confirm.list();
    expect(confirmations.find((c) => c.confirm_id === held.confirm_id)).toMatchObject({ status: 'executed', tx: hash });
    await shot(popup, 'pending-approved');
    expect(Object.keys(await sw.evaluate(() => chrome.notifications.getAll()))).not.toContain(`confirm:${held.confirm_id}`);
  });

  it('survives a service-worker restart: the stream resumes after the saved Last-Event-ID and nothing is missed', async () => {
    const cursorBefore = await sw.evaluate(() => chrome.storage.local.get('events'));
    const before = (cursorBefore.events as { lastEventId: number }).lastEventId;
    expect(before).toBeGreaterThan(0);

    // Stop the worker the way Chromium does when it idles (DevTools' "stop"), then hold an
    // action while it is down.
    await sw.evaluate(() => {
      (globalThis as { __marker?: string }).__marker = 'before the restart';
    });
    const cdp = await context.newCDPSession(popup);
    let status = 'running';
    /** Every status the worker passed through, in order: a wake between two looks is not missed. */
    const statuses: string[] = [];
    cdp.on('ServiceWorker.workerVersionUpdated', (e) => {
      for (const v of e.versions)
        if (v.scriptURL.startsWith(`chrome-extension://${extensionId}/`)) {
          status = v.runningStatus;
          statuses.push(status);
        }
    });
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    await until(
      async () => status,
      (s) => s === 'stopped',
      'the worker to stop',
    );
    const stoppedAt = statuses.length;
    const held = await admin.wallet.intent({ do: 'swap 21 USDC for WETH' });
    if (held.status !== 'needs_confirm') throw new Error('expected a held intent');
    // Nothing woke it from the stop until now (every change is recorded, not sampled after a
    // pause): the needs_confirm can only come from the replay.
    expect(statuses.slice(stoppedAt)).not.toContain('running');
    expect(status).toBe('stopped');

    // Opening the popup wakes the worker (a fresh instance), which resumes from its cursor.
    await popup.reload();
    await until(
      async () => status,
      (s) => s === 'running',
      'the worker to start again',
    );
    await cdp.detach();
    sw = context.serviceWorkers().find((w) => w.url().startsWith(`chrome-extension://${extensionId}/`))!;
    expect(await sw.evaluate(() => (globalThis as { __marker?: string }).__marker ?? 'fresh')).toBe('fresh');
    await until(badgeCount, (n) => n === 1, 'badge 1 after the restart');
    // The badge can show the pending count before the replayed event has made its
    // notification and moved the cursor: both are waited for, not sampled.
    await until(
      async () => Object.keys(await sw.evaluate(() => chrome.notifications.getAll())),
      (ids) => ids.includes(`confirm:${held.confirm_id}`),
      "the replayed hold's notification",
    );
    await until(
      async () => ((await sw.evaluate(() => chrome.storage.local.get('events'))).events as { lastEventId: number }).lastEventId,
      (after) => after > before,
      'the cursor past the replayed events',
    );

    await popup.getByTestId('tab-pending').click();
    await popup.getByTestId('pending-item').getByTestId('deny').click();
    await expect.poll(() => popup.getByTestId('pending-outcome').textContent()).toBe('Denied: nothing was sent.');
    await until(badgeCount, (n) => n === 0, 'badge 0 after the denial');
  });
});
