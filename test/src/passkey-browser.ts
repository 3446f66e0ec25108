// Real headless Chromium for the passkey tests (the distribution's, through playwright-core,
// found as scripts/chromium.ts says) with a CDP virtual authenticator on a page: ctap2 over the
// internal transport, resident keys and user verification, presence simulated — a device with
// Touch ID that always says yes. The pages' final states are read from `body[data-state]`.
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { findChromium, INSTALL_HINT } from '../../scripts/chromium';

export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(`no Chromium: ${INSTALL_HINT}`);
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
    ],
  });
}

export type Device = { context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string };

export const AUTHENTICATOR = {
  protocol: 'ctap2',
  transport: 'internal',
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

/** A page with a virtual authenticator of its own (holding no credential yet). */
export async function newDevice(browser: Browser): Promise<Device> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', { options: AUTHENTICATOR });
  return { context, page, cdp, authenticatorId };
}

/** Swaps the device's authenticator for a fresh one with no credential (another phone). */
export async function replaceAuthenticator(d: Device): Promise<void> {
  await d.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: d.authenticatorId });
  d.authenticatorId = (await d.cdp.send('WebAuthn.addVirtualAuthenticator', { options: AUTHENTICATOR })).authenticatorId;
}

/** Opens a link's page, presses its main button and answers the state it settles in and what it says. */
export async function pressOn(page: Page, url: string | null, button = '#go'): Promise<{ state: string; text: string }> {
  if (url !== null) await page.goto(url);
  await page.click(button);
  await page.waitForFunction(() => !['open', 'working'].includes(document.body.dataset.state ?? 'open'));
  return page.evaluate(() => ({ state: document.body.dataset.state ?? '', text: document.getElementById('status')?.textContent ?? '' }));
}

/**
 * Keeps the body the page posts to `/approve/<token>` (the authenticator's answer) instead of
 * sending it: what a replay or a double submission sends.
 */
export async function captureAssertion(page: Page): Promise<() => string | null> {
  let body: string | null = null;
  await page.route(/\/approve\/[^/]+$/, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    body = route.request().postData();
    await route.abort();
  });
  return () => body;
}
