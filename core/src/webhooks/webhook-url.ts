// Where a webhook may be sent (no SSRF): by default an `https` URL whose host resolves only to
// public unicast addresses — no loopback, private, link-local (cloud metadata), multicast,
// carrier-grade NAT or reserved ranges, in IPv4 or IPv6 (an IPv4-mapped IPv6 address is
// judged as the IPv4 it maps). Checked when an endpoint is made or changed, and again at each
// delivery, where the address judged is the one connected to (the answer is pinned: a name
// that resolves differently a moment later cannot point the request elsewhere). Ranges come
// from ipaddr.js rather than a hand-kept list. `allowPrivate` (PRESENCE_WEBHOOK_ALLOW_PRIVATE=1,
// development) allows `http` and any address.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { PresenceError } from '../errors/presence-error';

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** The resolver port: a host name's addresses (tests answer what they like without DNS). */
export type WebhookResolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: WebhookResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export type WebhookTarget = { url: URL; address: ResolvedAddress };

/** How long a name may take to resolve before the URL is refused (this attempt fails and is retried). */
export const RESOLVE_TIMEOUT_MS = 3_000;

/** Whether an address is a public unicast one (what a webhook may reach by default). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === 'unicast';
}

const refuse = (why: string) => new PresenceError('invalid_request', `webhook url refused: ${why}`);

/** The URL's form alone (no DNS): what creation refuses before resolving. */
export function parseWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('not a URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    throw refuse(allowPrivate ? 'use http or https' : 'use https (http only with PRESENCE_WEBHOOK_ALLOW_PRIVATE=1)');
  if (url.username || url.password) throw refuse('no credentials in the URL; authenticate the request by its signature');
  return url;
}

/**
 * Resolves the URL's host and picks the address to connect to, refusing when any answer is
 * not public (a name that mixes public and private answers could be steered to the private one).
 */
export async function resolveWebhookTarget(
  raw: string,
  { allowPrivate, resolver }: { allowPrivate: boolean; resolver: WebhookResolver },
): Promise<WebhookTarget> {
  const url = parseWebhookUrl(raw, allowPrivate);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let answers: ResolvedAddress[];
  if (isIP(host)) answers = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else {
    // Bounded: a delivery holds its endpoint's lease for the request's timeout and a little more.
    let timer: NodeJS.Timeout | undefined;
    try {
      answers = await Promise.race([
        resolver(host),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS);
        }),
      ]);
    } catch {
      throw refuse(`${host} does not resolve`);
    } finally {
      clearTimeout(timer);
    }
  }
  const first = answers[0];
  if (!first) throw refuse(`${host} does not resolve`);
  if (!allowPrivate) {
    const bad = answers.find((a) => !isPublicAddress(a.address));
    if (bad) throw refuse(`${host} resolves to ${bad.address}, which is not a public address`);
  }
  return { url, address: first };
}
