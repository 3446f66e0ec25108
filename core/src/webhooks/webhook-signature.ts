// Standard Webhooks signing (https://www.standardwebhooks.com): a secret is `whsec_` + base64
// of random bytes; a request is signed with HMAC-SHA256 over `id.timestamp.body` under the
// decoded bytes, sent as `v1,<base64>` — several space-separated while a rotated-out secret
// still signs, any one of which a receiver accepts. Verified in tests by the `standardwebhooks`
// package, which nobody here wrote.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret: 32 random bytes. */
export const newWebhookSecret = () => `${PREFIX}${randomBytes(32).toString('base64')}`;

/** The `v1,…` signature of one request under one secret. */
export function signatureOf(secret: string, messageId: string, timestampS: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampS}.${body}`).digest('base64')}`;
}

/** The three headers of a delivery signed with every secret given (newest first). */
export function signedHeaders(secrets: readonly string[], messageId: string, timestampS: number, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': secrets.map((s) => signatureOf(s, messageId, timestampS, body)).join(' '),
  };
}
