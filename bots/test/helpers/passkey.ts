// A passkey for the bootstrap account, made and used by the software authenticator of
// @presence/core/testing through the server's own enroll and approve pages' steps — what the
// user's phone would do on the pages the card's Approve link opens.
import { createSoftAuthenticator } from '@presence/core/testing';
import type { Presence } from './presence';

const authenticators = new WeakMap<Presence, ReturnType<typeof createSoftAuthenticator>>();

async function post(url: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${new URL(url).pathname.split('/')[1]}: ${res.status} ${await res.text()}`);
  return res.json();
}
/** The page's path on the server itself (links name the public origin, localhost). */
const onServer = (p: Presence, link: string) => `${p.server.url}${new URL(link).pathname}`;

export async function addPasskey(p: Presence): Promise<void> {
  if (authenticators.has(p)) return;
  const auth = createSoftAuthenticator({ origin: `http://localhost:${new URL(p.server.url).port}` });
  const { url } = await p.admin.passkeys.enroll({ name: 'phone' });
  await post(onServer(p, url), auth.register(await post(`${onServer(p, url)}/options`, {})));
  authenticators.set(p, auth);
}

export async function approveWithPasskey(p: Presence, approveUrl: string): Promise<void> {
  const auth = authenticators.get(p);
  if (!auth) throw new Error('addPasskey first');
  const page = onServer(p, approveUrl);
  await post(page, auth.assert(await post(`${page}/options`, {})));
}
