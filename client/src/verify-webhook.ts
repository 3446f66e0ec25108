// verifyWebhook: what a receiver calls on each request Presence sends it. Standard Webhooks
// verification (the scheme the `standardwebhooks` package implements, against which the tests
// check it): HMAC-SHA256 over `webhook-id.webhook-timestamp.body` under the secret's bytes,
// compared in constant time with each `v1,` signature in the header (two while a rotated-out
// secret still signs), and a timestamp within five minutes of now either way (a replayed old
// request is refused). Web Crypto only, so it runs in Node 20+, Deno, Bun, workers and browsers
// without a dependency.
import { WebhookPayload } from '@presence/protocol';

export type { WebhookPayload } from '@presence/protocol';

/** How far a request's timestamp may be from now (seconds). */
export const WEBHOOK_TOLERANCE_S = 5 * 60;

export class PresenceWebhookError extends Error {
  override readonly name = 'PresenceWebhookError';
  constructor(
    /** Why: a header missing, a stale or future timestamp, no signature that matches, a body that is not a Presence event. */
    readonly reason: 'headers' | 'timestamp' | 'signature' | 'payload',
    message: string,
  ) {
    super(message);
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : bag[key];
  return Array.isArray(v) ? v[0] : v;
}

const fromBase64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/**
 * The `v1,<base64>` signature of a request, as Presence makes it (for a receiver's own tests,
 * and for `presence listen`, which forwards events signed with a session secret).
 */
export async function signWebhook(secret: string, messageId: string, timestampS: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    fromBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${messageId}.${timestampS}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** Constant time in the length of `a` (the expected signature). */
function same(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ (b.charCodeAt(i % Math.max(1, b.length)) || 0);
  return diff === 0;
}

/**
 * Checks a delivery and answers its payload; throws PresenceWebhookError when it is not one
 * Presence signed with `secret` (whsec_…) within the last five minutes. Pass the body exactly
 * as received (the raw text or bytes, not re-serialized JSON).
 */
export async function verifyWebhook(
  secret: string,
  headers: HeaderBag,
  body: string | Uint8Array,
  { now = Date.now() }: { now?: number } = {},
): Promise<WebhookPayload> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new PresenceWebhookError('headers', 'missing webhook-id, webhook-timestamp or webhook-signature');
  const ts = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - ts) > WEBHOOK_TOLERANCE_S)
    throw new PresenceWebhookError('timestamp', 'webhook-timestamp is more than five minutes from now');
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const expected = (await signWebhook(secret, id, ts, text)).slice(3);
  const matched = signatures
    .split(' ')
    .map((s) => s.split(',', 2))
    .some(([version, sig]) => version === 'v1' && sig !== undefined && same(expected, sig));
  if (!matched) throw new PresenceWebhookError('signature', 'no signature in webhook-signature matches this secret');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PresenceWebhookError('payload', 'the body is not JSON');
  }
  const payload = WebhookPayload.safeParse(parsed);
  if (!payload.success) throw new PresenceWebhookError('payload', 'the body is not a Presence event');
  return payload.data;
}
